/**
 * The REST edge: a Koa app built from route definitions. Per request, in this order: request id and
 * logging, authentication, body parsing and schema validation, rate limits, Idempotency-Key, the handler,
 * and one error mapping for everything (no stack trace, SQL or secret ever leaves in a response).
 */
import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from 'pino';
import { DomainError, isTransientRefusal } from '../domain/shared/domain-error';
import { isDependencyUnavailable } from '../domain/shared/dependency-unavailable';
import { JSON_BODY_TYPES, parseJsonBody, readRawBody } from './http/body';
import { statusForCode } from './http/error-status';
import { HttpError, errorBody } from './http/errors';
import { IDEMPOTENCY_LOCK_MS, requestFingerprint, type IdempotencyStore } from './http/idempotency';
import type { BearerAuthenticator, Principal } from './http/principal';
import type { RateLimiter } from './http/rate-limiter';
import type { ApiRequest, ApiResponse, RouteDefinition } from './http/route';
import { compileValidator } from './http/validation';
import { clientAddress, TrustedProxies } from './http/client-address';
import { securityHeaders } from './http/security-headers';
import { publicCors } from './http/public-cors';
import { refuseUnstorablePathParameters, refuseUnstorableText } from './http/text-hygiene';

export interface EdgeDependencies {
  readonly routes: readonly RouteDefinition[];
  /** Tried in order; the first that recognises the bearer value wins. */
  readonly authenticators: readonly BearerAuthenticator[];
  readonly idempotency: IdempotencyStore;
  readonly rateLimiter: RateLimiter;
  readonly logger: Logger;
  readonly newRequestId: () => string;
  readonly now: () => Date;
  /** TRUSTED_PROXIES: CIDRs whose X-Forwarded-For names the client (edge/http/client-address.ts); default none. */
  readonly trustedProxies?: readonly string[];
  /**
   * Told of every answered request (metrics): the route pattern (`/v1/payments/:id`, `unmatched` when no route
   * matched: never the raw path, whose ids would make the series unbounded), method, status and seconds taken.
   */
  readonly observeRequest?: (route: string, method: string, status: number, seconds: number) => void;
}

interface EdgeState {
  requestId: string;
  log: Logger;
  /** The matched route's pattern, set by its handler. */
  route?: string;
}

const IDEMPOTENCY_KEY_MAX = 255;

function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

async function authenticate(route: RouteDefinition, ctx: Koa.Context, authenticators: readonly BearerAuthenticator[]): Promise<Principal | null> {
  if (route.auth === 'none' || route.auth === 'custom') return null;
  const token = bearerToken(ctx.get('authorization') || undefined);
  if (!token) throw new HttpError('unauthorized', 'Send a valid credential as Authorization: Bearer <key>');
  let principal: Principal | null = null;
  for (const authenticator of authenticators) {
    principal = await authenticator(token, ctx.headers);
    if (principal) break;
  }
  if (!principal) throw new HttpError('unauthorized', 'The credential is invalid, expired or revoked');
  if (route.auth === 'session' && principal.kind !== 'session') {
    throw new HttpError('forbidden', 'This operation needs a dashboard session, not an API key');
  }
  const missing = (route.scopes ?? []).filter((scope) => !principal!.scopes.has(scope));
  if (missing.length > 0) throw new HttpError('forbidden', `The credential lacks the scope ${missing.join(', ')}`);
  return principal;
}

function writeResponse(ctx: Koa.Context, response: ApiResponse, fallbackStatus: number): void {
  ctx.status = response.status ?? fallbackStatus;
  for (const [name, value] of Object.entries(response.headers ?? {})) ctx.set(name, value);
  if (response.contentType) ctx.type = response.contentType;
  if (response.body !== undefined) ctx.body = response.body;
  else if (ctx.status !== 204) ctx.body = {};
}

export function createEdgeApp(deps: EdgeDependencies): Koa {
  const app = new Koa();
  app.proxy = false;
  const trustedProxies = TrustedProxies.parse(deps.trustedProxies ?? []);
  const routers = new RouterPerGroup();

  app.use(securityHeaders());
  app.use(async (ctx, next) => {
    const state = ctx.state as EdgeState;
    state.requestId = deps.newRequestId();
    // The request's child logger is made on first use: a pino child runs the redaction paths over its bindings,
    // about 8 KB of garbage per request, and most requests log nothing below the production level.
    let log: Logger | undefined;
    Object.defineProperty(state, 'log', { get: () => (log ??= deps.logger.child({ requestId: state.requestId })), enumerable: true });
    ctx.set('Request-Id', state.requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new HttpError('not_found', `No route for ${ctx.method} ${ctx.path}`);
    } catch (error) {
      const { status, body, headers } = toErrorResponse(error, state, ctx);
      ctx.status = status;
      for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
      ctx.body = body;
    } finally {
      if (deps.observeRequest) deps.observeRequest(state.route ?? 'unmatched', ctx.method, ctx.status, Number(process.hrtime.bigint() - started) / 1e9);
      if (deps.logger.isLevelEnabled('info')) {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        state.log.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
      }
    }
  });

  for (const route of deps.routes) {
    const validateBody = route.body ? compileValidator(route.body, 'body') : null;
    const validateQuery = route.query ? compileValidator(route.query, 'query') : null;
    const routeKey = `${route.method.toUpperCase()} ${route.path}`;

    routers.for(route.path)[route.method](route.path, async (ctx) => {
      const state = ctx.state as EdgeState;
      state.route = route.path;
      // Before anything reads the input, the rate limiter's keys and the credential checks included: text the
      // database cannot store is refused here, for every route.
      refuseUnstorablePathParameters(ctx.params as Record<string, string>);
      for (const limit of route.arrivalRateLimits ?? []) {
        const subject = limit.key(ctx.params as Record<string, string>);
        if (subject !== null) await consumeLimit(deps.rateLimiter, `${limit.name}:${subject}`, limit.points, limit.durationSeconds);
      }
      const principal = await authenticate(route, ctx, deps.authenticators);
      const opened = route.auth === 'custom' && route.authenticate ? await route.authenticate({ params: ctx.params as Record<string, string>, headers: ctx.headers }) : undefined;
      const credentialScope = opened?.scope;

      const hasBody = route.method !== 'get' && route.method !== 'delete';
      const rawBody = hasBody ? await readRawBody(ctx.req) : '';
      // Only a body that is sent must say it is JSON: bodiless POSTs (capture, void, logout) send no Content-Type.
      if (rawBody.length > 0 && !ctx.is(JSON_BODY_TYPES)) {
        throw new HttpError('unsupported_media_type', 'Send the request body as JSON, with Content-Type: application/json', { param: 'header.Content-Type' });
      }
      let body: unknown = hasBody ? parseJsonBody(rawBody) : undefined;
      refuseUnstorableText(body, 'body');
      refuseUnstorableText(ctx.query, 'query');
      if (validateBody) body = validateBody(body);
      else if (hasBody && body !== undefined && !(typeof body === 'object' && body !== null && Object.keys(body).length === 0)) {
        if (route.auth !== 'custom') throw new HttpError('validation_failed', 'This operation takes no request body', { param: 'body' });
      }
      const query = validateQuery ? validateQuery({ ...ctx.query }) : { ...ctx.query };

      const request: ApiRequest = {
        params: ctx.params as Record<string, string>,
        query,
        body,
        rawBody,
        principal,
        ...(opened ? { credentialScope: opened.scope, credentialSubject: opened.subject } : {}),
        requestId: state.requestId,
        ip: clientAddress(ctx.socket.remoteAddress ?? '', ctx.headers['x-forwarded-for'], trustedProxies),
        headers: ctx.headers,
        get log() {
          return state.log;
        },
        koa: ctx,
      };

      for (const limit of route.rateLimits ?? []) {
        const subject = limit.key(request);
        if (subject === null) continue;
        await consumeLimit(deps.rateLimiter, `${limit.name}:${subject}`, limit.points, limit.durationSeconds);
      }

      const idempotencyKey = route.idempotent ? ctx.get('idempotency-key') : '';
      const keyScope = principal ? { organizationId: principal.organizationId, environment: principal.environment } : credentialScope;
      if (!idempotencyKey || !keyScope) {
        writeResponse(ctx, await route.handler(request), route.successStatus);
        return;
      }
      if (idempotencyKey.length > IDEMPOTENCY_KEY_MAX) {
        throw new HttpError('validation_failed', `Idempotency-Key must be at most ${IDEMPOTENCY_KEY_MAX} characters`, { param: 'header.Idempotency-Key' });
      }
      const scope = keyScope;
      const fingerprint = requestFingerprint(route.method, ctx.path, body);
      const begin = await deps.idempotency.begin(scope, routeKey, idempotencyKey, fingerprint, deps.now());
      if (begin.kind === 'conflict') {
        throw new HttpError(
          'idempotency_conflict',
          begin.reason === 'in_flight'
            ? 'A request with this Idempotency-Key is still being processed'
            : 'This Idempotency-Key was already used with a different request',
        );
      }
      if (begin.kind === 'replay') {
        writeResponse(ctx, { status: begin.response.status, body: begin.response.body, headers: { ...begin.response.headers, 'Idempotent-Replayed': 'true' } }, 200);
        return;
      }
      let response: ApiResponse;
      // While the handler runs, the key's lock is renewed: a request slower than the lock must not let a repetition
      // take its key over and run a second time.
      const lockMs = deps.idempotency.lockMs ?? IDEMPOTENCY_LOCK_MS;
      const keepLocked = setInterval(() => {
        void deps.idempotency.renew?.(scope, routeKey, idempotencyKey, deps.now()).catch((error: unknown) => state.log?.warn({ err: error }, 'could not renew an Idempotency-Key lock'));
      }, lockMs / 3);
      try {
        response = await route.handler(request);
      } catch (error) {
        clearInterval(keepLocked);
        // Only a deliberate answer is kept for the key and replayed: a refusal the service decided. A failure (of the
        // service, of the database, or the client hanging up) and a refusal that only says "retry in a moment" free
        // the key, so a retry with the same key runs again; a payment the first run already created is then answered
        // as it is, never charged again (create-payment.ts binds the payment to its key in tx1).
        const refusal = storableRefusal(error, state.requestId);
        if (refusal) await deps.idempotency.complete(scope, routeKey, idempotencyKey, refusal);
        else await deps.idempotency.abandon(scope, routeKey, idempotencyKey).catch(() => undefined);
        throw error;
      }
      clearInterval(keepLocked);
      const status = response.status ?? route.successStatus;
      await deps.idempotency.complete(scope, routeKey, idempotencyKey, { status, body: response.body ?? {}, headers: response.headers ?? {} });
      writeResponse(ctx, response, route.successStatus);
    });
  }

  // Only the public checkout routes answer other origins (contract.md 9); after the error mapping, so refusals carry it.
  app.use(publicCors());
  app.use(routers.dispatch());
  app.use(async (ctx, next) => {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      const matched = routers.matching(ctx.path)?.match(ctx.path, ctx.method);
      if (matched && matched.path.length > 0 && !matched.route) throw new HttpError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}`);
    }
  });
  return app;
}

/** Counts one request against a limit; 429 rate_limited with Retry-After once it is used up. */
async function consumeLimit(rateLimiter: RateLimiter, key: string, points: number, durationSeconds: number): Promise<void> {
  const verdict = await rateLimiter.consume(key, points, durationSeconds);
  if (!verdict.allowed) {
    throw new HttpError('rate_limited', 'Too many requests; retry after the time in Retry-After', {
      headers: { 'Retry-After': String(Math.max(1, verdict.retryAfterSeconds)) },
    });
  }
}

/**
 * One router per group of routes, the group being the first two segments of the path (`/v1/payments`, `/health`),
 * and each request dispatched to its group's router only. @koa/router tests a request against every route it holds,
 * with a debug call and a regular expression each: with the ~75 routes in one router, that was about 12 KB of
 * garbage per request (a twentieth of a payment's allocation) before any handler ran. Routes are matched as
 * @koa/router matches them, case-insensitively. A route whose second segment is a parameter (`/checkout/:paymentId`)
 * is grouped by its first, the fallback when no two-segment group matches; one whose first segment is not literal
 * would need every group's router and is refused at start-up.
 */
class RouterPerGroup {
  private readonly routers = new Map<string, Router>();

  for(routePath: string): Router {
    let group = groupOf(routePath);
    // A page addressed by id right under a literal segment (`/checkout/:paymentId`) is grouped by that segment.
    if (/[:*(?]/.test(group) && !/[:*(?]/.test(firstSegmentOf(routePath))) group = firstSegmentOf(routePath);
    if (/[:*(?]/.test(group)) throw new Error(`route ${routePath}: its first path segment must be literal`);
    let router = this.routers.get(group);
    if (!router) this.routers.set(group, (router = new Router()));
    return router;
  }

  matching(requestPath: string): Router | undefined {
    return this.routers.get(groupOf(requestPath)) ?? this.routers.get(firstSegmentOf(requestPath));
  }

  dispatch(): Koa.Middleware {
    const dispatchers = new Map([...this.routers].map(([group, router]) => [group, router.routes() as unknown as Koa.Middleware]));
    return (ctx, next) => {
      const dispatchGroup = dispatchers.get(groupOf(ctx.path)) ?? dispatchers.get(firstSegmentOf(ctx.path));
      return dispatchGroup ? dispatchGroup(ctx, next) : next();
    };
  }
}

/** `/checkout/pay_1` → `/checkout`: the group of a route whose second segment is its id. */
function firstSegmentOf(path: string): string {
  const secondSlash = path.indexOf('/', 1);
  return (secondSlash < 0 ? path : path.slice(0, secondSlash)).toLowerCase();
}

/**
 * `/v1/payments/pay_1/capture` → `/v1/payments`; `/health` and `/health/` → `/health`. Lower case and without a
 * trailing slash, as @koa/router matches routes.
 */
function groupOf(path: string): string {
  const secondSlash = path.indexOf('/', 1);
  const thirdSlash = secondSlash < 0 ? -1 : path.indexOf('/', secondSlash + 1);
  const group = thirdSlash < 0 ? path : path.slice(0, thirdSlash);
  return (group.length > 1 && group.endsWith('/') ? group.slice(0, -1) : group).toLowerCase();
}

export { IDEMPOTENCY_LOCK_MS };

interface ErrorResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;
}

/** How long a client is asked to wait when a dependency is down: spread over 1-5 s, so retries do not arrive together. */
function unavailableRetryAfterSeconds(): number {
  return 1 + Math.floor(Math.random() * 5);
}

/** The answer to a refusal the service decided (its own checks, a domain rule, an unreadable request), else null. */
function refusalResponse(error: unknown, requestId: string): ErrorResponse | null {
  if (error instanceof HttpError) {
    return { status: error.status, body: errorBody(error.code, error.message, requestId, error.options.param ?? null, error.options.details), headers: error.options.headers ?? {} };
  }
  if (error instanceof DomainError) {
    const status = statusForCode(error.code);
    // A refusal that holds only for a moment (another operation on the payment in flight) says when to retry, so
    // a client can tell it from a state that will not change.
    const headers: Record<string, string> = isTransientRefusal(error) ? { 'Retry-After': '1' } : {};
    return { status, body: errorBody(error.code, error.message, requestId, error.meta.param ?? null, error.meta.details ?? []), headers };
  }
  const status = (error as { status?: number; expose?: boolean }).status;
  if (status && status >= 400 && status < 500 && (error as { expose?: boolean }).expose) {
    const code = status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'bad_request';
    return { status, body: errorBody(code, 'The request could not be read', requestId), headers: {} };
  }
  return null;
}

/** A refusal that stands (4xx, no Retry-After): the one kind of failed answer an Idempotency-Key keeps. */
function storableRefusal(error: unknown, requestId: string): ErrorResponse | null {
  const refusal = refusalResponse(error, requestId);
  return refusal && refusal.status < 500 && refusal.headers['Retry-After'] === undefined ? refusal : null;
}

/**
 * The client hung up before its answer: the request was aborted mid-body, or its connection closed while it ran.
 * Judged by the client's own connection, never by an error's code: a database connection reset is ECONNRESET too.
 */
function clientHungUp(ctx: Koa.Context): boolean {
  return ctx.req.aborted || ctx.req.socket.destroyed;
}

function toErrorResponse(error: unknown, state: EdgeState, ctx: Koa.Context): ErrorResponse {
  const requestId = state.requestId;
  const refusal = refusalResponse(error, requestId);
  if (refusal) return refusal;
  if (isDependencyUnavailable(error)) {
    // Expected while a dependency is down, and many at once: one warn line of codes (the error's message holds no
    // statement or value), not a stack per request.
    state.log.warn({ dependency: error.dependency, reason: error.reason, errno: error.errno, method: ctx.method, path: ctx.path }, 'dependency unavailable');
    const message = `The service cannot reach its ${error.dependency} right now; retry after the time in Retry-After`;
    return { status: statusForCode('service_unavailable'), body: errorBody('service_unavailable', message, requestId), headers: { 'Retry-After': String(unavailableRetryAfterSeconds()) } };
  }
  if (clientHungUp(ctx)) {
    // Nobody reads this answer, and it is no fault of the service.
    state.log.info({ method: ctx.method, path: ctx.path }, 'client closed the connection');
    return { status: statusForCode('client_closed_request'), body: errorBody('client_closed_request', 'The client closed the connection', requestId), headers: {} };
  }
  (state.log ?? console).error({ err: error, method: ctx.method, path: ctx.path }, 'unexpected error');
  return { status: statusForCode('internal_error'), body: errorBody('internal_error', 'An unexpected error occurred; quote the request id to support', requestId), headers: {} };
}
