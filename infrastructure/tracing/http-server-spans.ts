/**
 * The edge's server span (contract.md 8, tracing): each HTTP request is a span, the child of the caller's W3C
 * traceparent when it sent one, and active while Koa handles it, so the commits, the gRPC calls and the events the
 * request causes join its trace. Wrapped around the Koa callback rather than written as Koa middleware, so that the
 * span covers the whole request and the edge stays free of OpenTelemetry. Off, the handler is returned untouched.
 */
import type http from 'node:http';
import { SpanStatusCode } from '@opentelemetry/api';
import { contextOf, SpanKind, startSpan, tracingRequestedOrStarted, withContext } from './tracing';

export function tracedRequests(handle: http.RequestListener): http.RequestListener {
  if (!tracingRequestedOrStarted()) return handle;
  return (request, response) => {
    const method = request.method ?? 'GET';
    const header = request.headers.traceparent;
    const started = startSpan(`HTTP ${method}`, {
      kind: SpanKind.SERVER,
      parent: contextOf(typeof header === 'string' ? header : undefined),
      attributes: { 'http.request.method': method, 'url.path': (request.url ?? '/').split('?')[0]! },
    });
    if (!started) {
      handle(request, response);
      return;
    }
    response.once('close', () => {
      started.span.setAttribute('http.response.status_code', response.statusCode);
      if (response.statusCode >= 500) started.span.setStatus({ code: SpanStatusCode.ERROR });
      started.span.end();
    });
    withContext(started.context, () => handle(request, response));
  };
}
