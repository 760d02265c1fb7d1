import type { DeliveryOutcomeWrite, NewAttemptRecord } from '../../domain/ports/webhook-repositories';
import { WebhookDelivery, type DeliveryAttempt, type AttemptResult } from '../../domain/webhook/webhook-delivery';
import type { WebhookEndpoint } from '../../domain/webhook/webhook-endpoint';
import { deliveryHeaders, recordedRequestHeaders, type DeliveryHeaderInput } from '../../domain/webhook/delivery-headers';
import type { WebhookDeps } from './webhook-deps';

export interface AttemptOutcome {
  readonly delivery: WebhookDelivery | null;
  readonly sent: boolean;
  /** Why the POST got no answer (refused, timed out ...), when it was sent and got none; the stored row keeps it in its attempts. */
  readonly error: string | null;
}

/** A leased delivery after its HTTP attempt (or after finding it should not be sent), waiting to be recorded. */
export type PendingRecord =
  | {
      readonly kind: 'sent';
      readonly delivery: WebhookDelivery;
      readonly leaseOwner: string;
      readonly attemptNumber: number;
      readonly headerInput: Omit<DeliveryHeaderInput, 'signature'>;
      readonly result: AttemptResult;
    }
  | {
      /** Nothing sent: no longer queued, or its endpoint was switched off or removed meanwhile. */
      readonly kind: 'skipped';
      readonly delivery: WebhookDelivery;
      readonly leaseOwner: string;
      readonly cancel: boolean;
    };

/**
 * Bodies are written by `envelopeBody`, whose first keys are id, type and apiVersion: reading that prefix spares
 * parsing the whole envelope (a few kB) at every attempt, which showed in the dispatcher's profile. Any other
 * shape is parsed.
 */
const LEADING_API_VERSION = /^\{"id":"[^"\\]*","type":"[^"\\]*","apiVersion":"([^"\\]*)"/;

function apiVersionOf(body: string): string {
  const leading = LEADING_API_VERSION.exec(body);
  if (leading) return leading[1]!;
  try {
    const parsed = JSON.parse(body) as { apiVersion?: unknown };
    return typeof parsed.apiVersion === 'string' ? parsed.apiVersion : '';
  } catch {
    return '';
  }
}

/**
 * Attempts of deliveries the caller holds the lease of. No transaction is open while the HTTP call runs:
 * `send` signs (now: the timestamp is part of the signature) and posts; `record` then writes the outcomes of
 * any number of attempts in ONE transaction (the dispatcher groups the attempts that finished together):
 * delivery transitions, attempt rows, the endpoints' health and a possible auto-disable, lease releases.
 */
export class AttemptDelivery {
  constructor(private readonly deps: WebhookDeps) {}

  /** One delivery by id (test webhooks): read, send, record. */
  async execute(deliveryId: string, leaseOwner: string): Promise<AttemptOutcome> {
    const { deps } = this;
    const { delivery, endpoint } = await deps.transactor.read(async (tx) => {
      const found = await deps.deliveries.findById(tx, deliveryId);
      return { delivery: found, endpoint: found ? await deps.endpoints.findById(tx, found.state.endpointId) : null };
    });
    if (!delivery) return { delivery: null, sent: false, error: null };
    const pending = await this.send(delivery, endpoint, leaseOwner);
    await this.record([pending]);
    const stored = await deps.transactor.read((tx) => deps.deliveries.findById(tx, deliveryId));
    return { delivery: stored, sent: pending.kind === 'sent', error: pending.kind === 'sent' ? (pending.result.error ?? null) : null };
  }

  /** The endpoints of claimed deliveries, read once for the whole claim. */
  async endpointsOf(deliveries: readonly WebhookDelivery[]): Promise<Map<string, WebhookEndpoint>> {
    const ids = [...new Set(deliveries.map((d) => d.state.endpointId))];
    const endpoints = await this.deps.transactor.read((tx) => this.deps.endpoints.findByIds(tx, ids));
    return new Map(endpoints.map((e) => [e.id, e]));
  }

  /** Sends one leased delivery, its row and endpoint as the caller read them. Never throws for a failed POST. */
  async send(delivery: WebhookDelivery, endpoint: WebhookEndpoint | null, leaseOwner: string): Promise<PendingRecord> {
    const { deps } = this;
    if (!delivery.queued) return { kind: 'skipped', delivery, leaseOwner, cancel: false };
    // Endpoint switched off or removed after this delivery was queued.
    if (!endpoint || !endpoint.receivesDeliveries()) return { kind: 'skipped', delivery, leaseOwner, cancel: true };

    const now = deps.clock.now();
    const attemptNumber = delivery.nextAttemptNumber();
    const headerInput = {
      eventId: delivery.state.eventId,
      eventType: delivery.state.eventType,
      attempt: attemptNumber,
      apiVersion: apiVersionOf(delivery.state.body),
      customHeaders: endpoint.state.customHeaders,
    };
    const signature = deps.signer.sign(endpoint.signingSecrets(now), Math.floor(now.getTime() / 1000), delivery.state.body);
    const response = await deps.sender.send({
      url: endpoint.state.url,
      headers: deliveryHeaders({ ...headerInput, signature }),
      body: delivery.state.body,
      timeoutMs: deps.settings.timeoutMs,
      urlContext: { environment: endpoint.state.environment, deployment: deps.settings.deployment },
    });
    const result: AttemptResult = {
      startedAt: response.startedAt,
      durationMs: response.durationMs,
      responseStatus: response.status,
      responseBody: response.body,
      error: response.error,
    };
    return { kind: 'sent', delivery, leaseOwner, attemptNumber, headerInput, result };
  }

  /**
   * Records attempts in one transaction. Each delivery appears at most once. The new states are computed from
   * the rows as claimed and stored only where the row is still as claimed (a manual retry or cancel meanwhile
   * wins; the attempt row is kept either way), so the deliveries are not read again. Endpoints are locked
   * (their health counts every attempt) in id order: the same order as PATCH/DELETE, and between workers.
   */
  async record(pending: readonly PendingRecord[]): Promise<void> {
    const { deps } = this;
    if (pending.length === 0) return;
    const ids = pending.map((p) => p.delivery.id);
    if (new Set(ids).size !== ids.length) throw new Error('a delivery appears twice in one batch of attempt records');
    await deps.transactor.run(async (tx) => {
      // Test deliveries are diagnostics: they do not move the endpoint's health, so their endpoint is not locked.
      const healthIds = [...new Set(pending.filter((p) => p.kind === 'sent' && !p.delivery.state.isTest).map((p) => p.delivery.state.endpointId))];
      const endpoints = new Map((healthIds.length ? await deps.endpoints.findByIds(tx, healthIds, { forUpdate: true }) : []).map((e) => [e.id, e]));
      const writes: DeliveryOutcomeWrite[] = [];
      const attempts: NewAttemptRecord[] = [];
      const touched = new Set<WebhookEndpoint>();
      const autoDisabled: Array<{ endpoint: WebhookEndpoint; at: Date }> = [];

      // Health moves in the order the attempts finished.
      const ordered = [...pending].sort((a, b) => finishedAt(a) - finishedAt(b));
      for (const p of ordered) {
        const next = WebhookDelivery.restore(p.delivery.state);
        if (p.kind === 'skipped') {
          const cancel = p.cancel && next.cancelForSwitchedOffEndpoint(deps.clock.now());
          writes.push({ delivery: next, moveState: cancel, leaseOwner: p.leaseOwner });
          continue;
        }
        next.recordAttempt(p.result, deps.settings.retryPolicy, deps.random);
        const attempt: DeliveryAttempt = next.state.attemptLog[next.state.attemptLog.length - 1];
        writes.push({
          delivery: next,
          moveState: true,
          expectedAttempts: p.delivery.state.attempts,
          requestHeaders: recordedRequestHeaders(p.headerInput),
          leaseOwner: p.leaseOwner,
        });
        attempts.push({ delivery: next, attempt });
        const endpoint = next.state.isTest ? undefined : endpoints.get(next.state.endpointId);
        if (endpoint) {
          const at = new Date(finishedAt(p));
          if (endpoint.recordAttempt(attempt.succeeded, at).autoDisabled) autoDisabled.push({ endpoint, at });
          touched.add(endpoint);
        }
      }
      await deps.deliveries.recordOutcomes(tx, writes, attempts);
      if (touched.size) await deps.endpoints.recordHealth(tx, [...touched]);
      for (const { endpoint, at } of autoDisabled) await deps.deliveries.cancelQueued(tx, endpoint.id, at);
    });
  }
}

function finishedAt(p: PendingRecord): number {
  return p.kind === 'sent' ? p.result.startedAt.getTime() + p.result.durationMs : 0;
}
