import type { Environment, TenantScope } from '../../domain/shared/environment';

/** Who is calling, resolved from the bearer credential. Every handler scopes its work by these fields. */
export interface Principal {
  readonly kind: 'api_key' | 'session';
  readonly organizationId: string;
  readonly environment: Environment;
  readonly scopes: ReadonlySet<string>;
  readonly apiKeyId?: string;
  readonly userId?: string;
  readonly role?: string;
  /** Session-specific data an authenticator wants handlers to see (e.g. session id). */
  readonly session?: Readonly<Record<string, unknown>>;
}

/**
 * Turns a bearer value into a principal, or null when it does not recognise it. The API key
 * authenticator is built in; dashboard sessions register their own (headers give it
 * `Service-Environment`).
 */
export type BearerAuthenticator = (token: string, headers: Readonly<Record<string, string | string[] | undefined>>) => Promise<Principal | null>;

/** The organization and environment a merchant route works in (routes with auth `merchant` always have a principal). */
export function tenantScopeOf(principal: Principal | null | undefined): TenantScope {
  return { organizationId: principal!.organizationId, environment: principal!.environment };
}
