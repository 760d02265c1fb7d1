import type { Accounts } from '../../application/identity/accounts';
import { ENVIRONMENTS, type Environment } from '../../domain/shared/environment';
import { HttpError } from '../http/errors';
import type { BearerAuthenticator, Principal } from '../http/principal';

/**
 * Dashboard access tokens (any bearer value that is not an API key). The environment comes from the
 * `Service-Environment` header (sandbox by default); scopes come from the member's role in the organization.
 */
export function sessionAuthenticator(accounts: Accounts): BearerAuthenticator {
  return async (token, headers) => {
    if (token.startsWith('sk_')) return null;
    const identity = await accounts.authenticate(token);
    if (!identity) return null;
    return {
      kind: 'session',
      organizationId: identity.organizationId,
      environment: environmentOf(headers['service-environment']),
      scopes: new Set(identity.scopes),
      userId: identity.user.id,
      role: identity.role,
      session: { sessionId: identity.sessionId },
    };
  };
}

export function environmentOf(header: string | string[] | undefined): Environment {
  const value = (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase();
  if (value === undefined || value === '') return 'sandbox';
  if ((ENVIRONMENTS as readonly string[]).includes(value)) return value as Environment;
  throw new HttpError('validation_failed', 'Service-Environment must be sandbox or live', { param: 'header.Service-Environment' });
}

/** The user and session behind a session principal (routes with auth `session` always have them). */
export function sessionOf(principal: Principal | null): { userId: string; sessionId: string; organizationId: string; role: string } {
  const sessionId = principal?.session?.sessionId;
  if (!principal || principal.kind !== 'session' || !principal.userId || typeof sessionId !== 'string') {
    throw new HttpError('forbidden', 'This operation needs a dashboard session, not an API key');
  }
  return { userId: principal.userId, sessionId, organizationId: principal.organizationId, role: principal.role ?? '' };
}

export function requireAccountAdmin(principal: Principal | null): { userId: string; sessionId: string; organizationId: string; role: string } {
  const session = sessionOf(principal);
  if (session.role !== 'owner' && session.role !== 'administrator') {
    throw new HttpError('forbidden', 'This operation needs an owner or administrator session');
  }
  return session;
}
