/**
 * The Prometheus metric families of one service process (contract.md 8: names start with `pos_`). One registry per
 * core, not prom-client's global one, so two services in one process (tests, embedded mode) never mix their counts.
 *
 * Labels stay bounded: never a payment, organization, endpoint or event id. `account` is a connector account id:
 * bounded by the accounts an installation configures (tens), so it is a label; `connector` is the adapter's slug.
 *
 * Families are observed at the ports and adapters (the edge middleware, the connector gateway wrapper, the outbox
 * relay, the webhook dispatcher); gauges that describe the database (outbox lag, jobs due, endpoints failing) are
 * read on scrape by `database-gauges.ts`.
 */
import { collectDefaultMetrics, Counter, Histogram, Registry, type LabelValues } from 'prom-client';
import { decodeTime } from 'ulidx';
import type { StoredEvent } from '../../domain/ports/event-outbox';
import { attemptSucceeded } from '../../domain/webhook/webhook-delivery';
import type { PendingRecord } from '../../application/webhook/attempt-delivery';

/** Seconds; from a fast cache-served read to a connector call near its deadline. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds from an event's commit to its delivery: retries stretch it to hours. */
const DELIVERY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 6 * 3600, 24 * 3600];

/**
 * What a published payment event says about the payment's outcome, null when it is not one: a capture after an
 * authorization is not a second approval (an automatic capture, or a Pix or boleto paid, is the first), and a
 * payment.failed is `declined` when it carries the decline, `failed` (technical, no account answered) otherwise.
 */
function outcomeOf(event: StoredEvent, payment: PaymentEventObject): string | null {
  switch (event.type) {
    case 'payment.authorized':
      return 'approved';
    case 'payment.captured':
      return event.data.previousAttributes?.status === 'authorized' ? null : 'approved';
    case 'payment.failed':
      return payment.decline ? 'declined' : 'failed';
    case 'payment.attempt_declined':
      return 'attempt_declined';
    case 'payment.canceled':
      return 'canceled';
    default:
      return null;
  }
}

type HistogramChild = ReturnType<Histogram<string>['labels']>;

export type WebhookAttemptOutcome = 'succeeded' | 'failed' | 'unreachable' | 'skipped';

export class ServiceMetrics {
  readonly registry = new Registry();
  private defaultsCollected = false;

  readonly httpRequestDuration = new Histogram({
    name: 'pos_http_request_duration_seconds',
    help: 'REST requests by route pattern (never the raw path), method and status; _count is the number of requests.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly payments = new Counter({
    name: 'pos_payments_total',
    help: 'Payment outcomes as published (once across processes): approved, declined (with decline_reason), failed, attempt_declined, canceled.',
    labelNames: ['method', 'connector', 'account', 'outcome', 'decline_reason'] as const,
    registers: [this.registry],
  });

  readonly fallbacks = new Counter({
    name: 'pos_payment_fallbacks_total',
    help: 'Attempts a payment moved on from to another connector account (labelled by the account it left).',
    labelNames: ['method', 'connector', 'account'] as const,
    registers: [this.registry],
  });

  readonly connectorCalls = new Histogram({
    name: 'pos_connector_call_duration_seconds',
    help: 'Acquirer and antifraud gRPC calls by connector, account, rpc and gRPC status (OK when answered, a decline included).',
    labelNames: ['kind', 'connector', 'account', 'rpc', 'grpc_status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly webhookAttempts = new Counter({
    name: 'pos_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome: succeeded (2xx), failed (other status), unreachable (no answer), skipped.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly webhookRetries = new Counter({
    name: 'pos_webhook_retries_total',
    help: 'Webhook attempts after the first of their delivery.',
    registers: [this.registry],
  });

  readonly webhookDeliveryLatency = new Histogram({
    name: 'pos_webhook_delivery_latency_seconds',
    help: 'From the commit of an event to its successful delivery to an endpoint (retries included).',
    buckets: DELIVERY_BUCKETS,
    registers: [this.registry],
  });

  /** route -> method -> status -> child: the request path looks its series up without building a key string. */
  private readonly httpChildren = new Map<string, Map<string, Map<number, HistogramChild>>>();
  private readonly webhookOutcomeChildren = new Map<WebhookAttemptOutcome, { inc(): void }>();

  /** Node's own metrics (CPU, heap, GC, event-loop lag from monitorEventLoopDelay) once a listener serves them. */
  collectProcessMetrics(): void {
    if (this.defaultsCollected) return;
    this.defaultsCollected = true;
    collectDefaultMetrics({ register: this.registry, prefix: 'pos_', eventLoopMonitoringPrecision: 20 });
  }

  /** The edge's per-request hook: `route` is the route pattern (`/v1/payments/:id`), `unmatched` when none. */
  readonly observeRequest = (route: string, method: string, status: number, seconds: number): void => {
    let byMethod = this.httpChildren.get(route);
    if (!byMethod) this.httpChildren.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let child = byStatus.get(status);
    if (!child) byStatus.set(status, (child = this.httpRequestDuration.labels(route, method, String(status))));
    child.observe(seconds);
  };

  /** The relay's hook: counts each payment outcome when its event is published (one relay publishes an event). */
  readonly observePublished = (events: readonly StoredEvent[]): void => {
    for (const event of events) {
      if (!event.type.startsWith('payment.')) continue;
      const payment = event.data.object as PaymentEventObject;
      const outcome = outcomeOf(event, payment);
      if (!outcome) continue;
      const method = payment.methodType ?? 'unknown';
      const decline = outcome === 'declined' || outcome === 'attempt_declined' ? payment.decline?.reason ?? 'unknown' : '';
      // A payment that ended before reaching any account (no account available) is counted under account "none".
      this.payments.inc({ method, connector: payment.connector ?? 'none', account: payment.connectorAccountId ?? 'none', outcome, decline_reason: decline });
      // Every attempt but the last moved the payment on to another account (attempt_declined keeps the payment open:
      // its attempts are counted when it ends).
      if (outcome === 'attempt_declined') continue;
      const attempts = payment.attempts ?? [];
      for (const left of attempts.slice(0, -1)) {
        this.fallbacks.inc({ method, connector: left.connector ?? 'unknown', account: left.connectorAccountId ?? 'unknown' });
      }
    }
  };

  /** The gateway wrapper's hook. */
  observeConnectorCall(labels: LabelValues<'kind' | 'connector' | 'account' | 'rpc' | 'grpc_status'>, seconds: number): void {
    this.connectorCalls.observe(labels, seconds);
  }

  /** The webhook dispatcher's hook, once per attempt it made or skipped. */
  readonly observeWebhookRecord = (pending: PendingRecord): void => {
    const finishedAt = Date.now();
    const { eventId } = pending.delivery.state;
    if (pending.kind !== 'sent') {
      this.observeWebhookAttempt({ outcome: 'skipped', attemptNumber: 1, eventId, finishedAt });
      return;
    }
    const outcome = attemptSucceeded(pending.result) ? 'succeeded' : pending.result.responseStatus === null ? 'unreachable' : 'failed';
    this.observeWebhookAttempt({ outcome, attemptNumber: pending.attemptNumber, eventId, finishedAt });
  };

  observeWebhookAttempt(attempt: { outcome: WebhookAttemptOutcome; attemptNumber: number; eventId: string; finishedAt: number }): void {
    let child = this.webhookOutcomeChildren.get(attempt.outcome);
    if (!child) this.webhookOutcomeChildren.set(attempt.outcome, (child = this.webhookAttempts.labels(attempt.outcome)));
    child.inc();
    if (attempt.attemptNumber > 1) this.webhookRetries.inc();
    if (attempt.outcome !== 'succeeded') return;
    const committedAt = commitTimeOf(attempt.eventId);
    if (committedAt !== null) this.webhookDeliveryLatency.observe(Math.max(0, attempt.finishedAt - committedAt) / 1000);
  }

  /** Prometheus text exposition of every family. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

interface PaymentEventObject {
  readonly methodType?: string;
  readonly connector?: string | null;
  readonly connectorAccountId?: string | null;
  readonly decline?: { readonly reason?: string } | null;
  readonly attempts?: ReadonlyArray<{ readonly connector?: string | null; readonly connectorAccountId?: string | null }>;
}

/**
 * An event id is `evt_` + a ULID made when the event was appended inside its transaction: its time is the commit's
 * (to the transaction's length), read without a database round trip.
 */
function commitTimeOf(eventId: string): number | null {
  try {
    return decodeTime(eventId.slice(eventId.indexOf('_') + 1));
  } catch {
    return null;
  }
}
