/**
 * Headers every answer carries, set once at the edge rather than by each route, so a new route cannot forget them.
 *
 * - `X-Content-Type-Options: nosniff` on every answer: a browser never runs a JSON answer as a script or a page.
 * - `Cache-Control: no-store` on every answer that does not choose its own caching: API answers carry secrets and
 *   tokens (API key secrets, webhook signing secrets, session and challenge tokens, recovery codes, client
 *   secrets) and are private to their caller anyway, so no browser or proxy keeps any of them. A route that serves
 *   something public (the reference page's assets) sets its own `Cache-Control`, which is kept.
 * - On every HTML answer: a Content-Security-Policy (only this origin's scripts, no plugins, never framed), the
 *   same refusal to be framed for browsers without CSP (`X-Frame-Options`), and no Referer sent to other sites.
 *   A page that needs another policy (another origin to talk to, being framed) sets its own header, which is kept.
 */
import type Koa from 'koa';

/** Styles may be inline: swagger-ui styles its elements; scripts may not. */
export const HTML_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Runs outermost: the error mapping inside it has already made every failure an answer. */
export function securityHeaders(): Koa.Middleware {
  return async (ctx, next) => {
    await next();
    ctx.set('X-Content-Type-Options', 'nosniff');
    setUnlessChosen(ctx, 'Cache-Control', 'no-store');
    if (ctx.response.is('html')) {
      setUnlessChosen(ctx, 'Content-Security-Policy', HTML_CONTENT_SECURITY_POLICY);
      setUnlessChosen(ctx, 'X-Frame-Options', 'DENY');
      setUnlessChosen(ctx, 'Referrer-Policy', 'no-referrer');
    }
  };
}

function setUnlessChosen(ctx: Koa.Context, name: string, value: string): void {
  if (!ctx.response.get(name)) ctx.set(name, value);
}
