/**
 * OpenTelemetry traces (contract.md 8), configured only by the standard OTEL_* variables and off unless
 * OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER asks for them. Off, the SDK is not even loaded and every helper
 * below returns at its first line: no span objects, no context lookups, nothing patched in.
 *
 * On, the W3C `traceparent` carries one payment's trace across the process boundaries the code crosses itself: HTTP
 * (the edge's server span), gRPC metadata (client and adapter spans), the outbox row, NATS message headers, and on to
 * each webhook delivery. Spans are made here by hand at those boundaries rather than by instrumentation packages that
 * patch modules at load time.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  isSpanContextValid,
  propagation,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

export { SpanKind };

const TRACER_NAME = 'payment-orchestration';
let enabled = false;

export interface Tracing {
  /** Exports what is buffered and unregisters the SDK. */
  shutdown(): Promise<void>;
}

/** True when the OTEL_* variables ask for traces (contract.md 8: off when both are unset). */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (String(env.OTEL_SDK_DISABLED).toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_TRACES_EXPORTER?.trim());
}

/**
 * Starts the SDK when the environment asks for it (or, for tests, with these span processors); null otherwise.
 * Called first thing in each process's entry. `serviceName` names the role unless OTEL_SERVICE_NAME does.
 */
export function startTracing(serviceName: string, options: { env?: NodeJS.ProcessEnv; spanProcessors?: SpanProcessor[] } = {}): Tracing | null {
  const env = options.env ?? process.env;
  if (!options.spanProcessors && !tracingRequested(env)) return null;
  // Metrics are Prometheus (pos_*) and logs go to stdout: the SDK exports them too only when asked to explicitly.
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  // Loaded here, not at the top: a process without tracing never loads the SDK.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { NodeSDK, core } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName }),
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
    // contract.md 8 fixes W3C trace context across every boundary, whatever OTEL_PROPAGATORS says.
    textMapPropagator: new core.W3CTraceContextPropagator(),
    instrumentations: [],
  });
  sdk.start();
  enabled = true;
  return {
    async shutdown() {
      enabled = false;
      await sdk.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** True once the SDK started in this process: wrappers that are chosen once (the HTTP handler) check it. */
export function tracingRequestedOrStarted(): boolean {
  return enabled;
}

export interface SpanOptions {
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
  /** The remote parent (a traceparent read from a message or a row); the active context when absent. */
  readonly parent?: Context;
}

/** Runs `work` inside a new active span, ended when it settles; a rejection marks the span as an error. */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span | null) => Promise<T>): Promise<T> {
  if (!enabled) return work(null);
  const tracer = trace.getTracer(TRACER_NAME);
  return tracer.startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {} }, options.parent ?? context.active(), async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Starts a span the caller ends (for work that ends in a callback, such as an HTTP response); null when off. */
export function startSpan(name: string, options: SpanOptions): { span: Span; context: Context } | null {
  if (!enabled) return null;
  const parent = options.parent ?? context.active();
  const span = trace.getTracer(TRACER_NAME).startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {} }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `fn` with `ctx` active (when tracing is on and there is one). */
export function withContext<T>(ctx: Context | null | undefined, fn: () => T): T {
  return enabled && ctx ? context.with(ctx, fn) : fn();
}

/**
 * Runs `fn` outside any trace. A timer armed inside a span's context runs in it (the context follows async work), so
 * a long-lived loop rearmed from a request or a message would otherwise put its later, unrelated work in that trace.
 */
export function detached<T>(fn: () => T): T {
  return enabled ? context.with(ROOT_CONTEXT, fn) : fn();
}

/** The active span's W3C traceparent, to be carried by a message, a row or a call; undefined when there is none. */
export function currentTraceparent(): string | undefined {
  if (!enabled) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The context a carried traceparent names, to parent a span on; undefined when off or absent. */
export function contextOf(traceparent: string | null | undefined): Context | undefined {
  if (!enabled || !traceparent) return undefined;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

/** pino mixin: the active span's ids on each log line, so a log line leads to its trace. */
export function traceLogFields(): Record<string, string> {
  if (!enabled) return {};
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
