/**
 * CORS for the public checkout routes only (contract.md 9): the hosted page and checkout.js mounted in a merchant's
 * page of any origin call /v1/public/*, authenticated by the payment's client secret in a header (never a cookie),
 * so any origin may. No other route answers CORS: a browser on another site cannot read what an API key or a
 * dashboard session sees. The sandbox vault, a server of its own, answers CORS likewise.
 */
import type Koa from 'koa';

export const PUBLIC_ROUTE_PREFIX = '/v1/public/';

const ALLOWED_METHODS = 'GET, POST, OPTIONS';
const ALLOWED_HEADERS = 'Content-Type, Service-Client-Secret, Idempotency-Key';
/** What a page may read from an answer besides the simple headers. */
const EXPOSED_HEADERS = 'Request-Id, Retry-After, Idempotent-Replayed';

export function publicCors(): Koa.Middleware {
  return async (ctx, next) => {
    if (!ctx.path.toLowerCase().startsWith(PUBLIC_ROUTE_PREFIX)) return next();
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    if (ctx.method === 'OPTIONS') {
      // The preflight: answered here, before any route (it carries no credential and counts against no limit).
      ctx.set('Access-Control-Allow-Methods', ALLOWED_METHODS);
      ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    return next();
  };
}
