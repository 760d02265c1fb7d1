import type Koa from 'koa';
import type { Logger } from 'pino';
import type { JsonSchema } from './validation';
import type { Principal } from './principal';
import type { TenantScope } from '../../domain/shared/environment';

/**
 * Who may call a route:
 * - `none`: nobody needs to authenticate (health, docs, login).
 * - `merchant`: an API key or a dashboard session; `scopes` must all be granted.
 * - `session`: a dashboard session only (account administration).
 * - `custom`: the handler authenticates by itself (browser checkout, inbound notices).
 */
export type RouteAuth = 'none' | 'merchant' | 'session' | 'custom';

export interface RateLimitRule {
  /** Name of the limit, part of its storage key. */
  readonly name: string;
  readonly points: number;
  readonly durationSeconds: number;
  /** What the limit counts per (organization, payment id, address...). Null skips the limit. */
  readonly key: (request: ApiRequest) => string | null;
}

/**
 * A limit counted when a request arrives, before authentication and validation, so every request counts whatever
 * its answer (contract.md 7: the public checkout's per-payment limits). It sees only the path parameters.
 */
export interface ArrivalRateLimitRule {
  readonly name: string;
  readonly points: number;
  readonly durationSeconds: number;
  readonly key: (params: Readonly<Record<string, string>>) => string | null;
}

/** What a route's own credential check opened: the scope, and what it read to decide (the request's `credentialSubject`). */
export interface OpenedCredential {
  readonly scope: TenantScope;
  readonly subject?: unknown;
}

/** What a route's own credential check (auth `custom`) reads. */
export interface CredentialRequest {
  readonly params: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

export interface ApiRequest<Body = any, Query = any> {
  readonly params: Record<string, string>;
  readonly query: Query;
  readonly body: Body;
  readonly rawBody: string;
  readonly principal: Principal | null;
  /** What a route's own credential check (auth `custom` with `authenticate`) opened; absent otherwise. */
  readonly credentialScope?: TenantScope;
  /** What that check read to decide (e.g. the checkout payment), so the handler need not read it again. */
  readonly credentialSubject?: unknown;
  readonly requestId: string;
  readonly ip: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly log: Logger;
  /** The Koa context, for the rare handler that needs it (streams, static files). */
  readonly koa: Koa.Context;
}

export interface ApiResponse {
  readonly status?: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Content type when body is a string that is not JSON (HTML, JavaScript, CSS). */
  readonly contentType?: string;
}

/** One REST route: the single source for routing, validation, authentication, limits and OpenAPI. */
export interface RouteDefinition<Body = any, Query = any> {
  readonly method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /** Koa style: /v1/payments/:id */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly description?: string;
  readonly auth: RouteAuth;
  readonly scopes?: readonly string[];
  readonly body?: JsonSchema;
  readonly query?: JsonSchema;
  /** Honour the Idempotency-Key header (contract.md section 3). */
  readonly idempotent?: boolean;
  readonly rateLimits?: readonly RateLimitRule[];
  /** Counted on arrival, before anything else: see ArrivalRateLimitRule. */
  readonly arrivalRateLimits?: readonly ArrivalRateLimitRule[];
  /**
   * auth `custom` only: the route's own credential check, run where the bearer check runs; it throws to refuse. The
   * scope it opens (a checkout payment's client secret opens that payment's organization and environment) is the
   * request's `credentialScope` and scopes its Idempotency-Key as an API key's would.
   */
  readonly authenticate?: (request: CredentialRequest) => Promise<OpenedCredential>;
  readonly successStatus: number;
  /** Response schema for the OpenAPI document (documentation only); its `examples`, if any, are the example shown. */
  readonly response?: JsonSchema;
  /** What the success answer is when not JSON (the reference page's HTML), for the OpenAPI document. */
  readonly responseMediaType?: string;
  readonly handler: (request: ApiRequest<Body, Query>) => Promise<ApiResponse>;
}

/** Helps type inference when a module declares routes. */
export function defineRoute<Body = any, Query = any>(route: RouteDefinition<Body, Query>): RouteDefinition<Body, Query> {
  return route;
}
