import type { DeliveryOutcomeWrite, NewAttemptRecord } from '../../domain/ports/webhook-repositories';
import type { WebhookDelivery, DeliveryAttempt, AttemptResult } from '../../domain/webhook/webhook-delivery';
import { isSuccessStatus } from '../../domain/webhook/webhook-delivery';
import type { WebhookEndpoint } from '../../domain/webhook/webhook-endpoint';
import { deliveryHeaders, recordedRequestHeaders, type DeliveryHeaderInput } from '../../domain/webhook/delivery-headers';
import type { WebhookDeps } from './webhook-deps';

export interface AttemptOutcome {
  readonly delivery: WebhookDelivery | null;
  readonly sent: boolean;
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

function apiVersionOf(body: string): string {
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
    if (!delivery) return { delivery: null, sent: false };
    const pending = await this.send(delivery, endpoint, leaseOwner);
    const recorded = await this.record([pending]);
    return { delivery: recorded.get(deliveryId) ?? null, sent: pending.kind === 'sent' };
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
   * Records attempts in one transaction and returns the deliveries as stored (null when gone). Each delivery
   * appears at most once. Lock order endpoints -> deliveries, each in id order: the same order as PATCH/DELETE
   * (which lock the endpoint, then cancel its deliveries), and the same between the batches of several workers.
   */
  async record(pending: readonly PendingRecord[]): Promise<Map<string, WebhookDelivery | null>> {
    const { deps } = this;
    if (pending.length === 0) return new Map();
    const ids = pending.map((p) => p.delivery.id);
    if (new Set(ids).size !== ids.length) throw new Error('a delivery appears twice in one batch of attempt records');
    const outcome = await deps.transactor.run(async (tx) => {
      // Test deliveries are diagnostics: they do not move the endpoint's health, so their endpoint is not locked.
      const healthIds = [...new Set(pending.filter((p) => p.kind === 'sent' && !p.delivery.state.isTest).map((p) => p.delivery.state.endpointId))];
      const endpoints = new Map((healthIds.length ? await deps.endpoints.findByIds(tx, healthIds, { forUpdate: true }) : []).map((e) => [e.id, e]));
      const fresh = new Map((await deps.deliveries.findByIds(tx, ids, { forUpdate: true })).map((d) => [d.id, d]));
      const writes: DeliveryOutcomeWrite[] = [];
      const attempts: NewAttemptRecord[] = [];
      const touched = new Set<WebhookEndpoint>();
      const autoDisabled: Array<{ endpoint: WebhookEndpoint; at: Date }> = [];

      // Health moves in the order the attempts finished.
      const ordered = [...pending].sort((a, b) => finishedAt(a) - finishedAt(b));
      for (const p of ordered) {
        const current = fresh.get(p.delivery.id);
        if (!current) continue;
        if (p.kind === 'skipped') {
          const canceled = p.cancel && current.cancelForSwitchedOffEndpoint(deps.clock.now());
          writes.push({ delivery: current, moveState: canceled, leaseOwner: p.leaseOwner });
          continue;
        }
        let attempt: DeliveryAttempt;
        // Only the attempt the state expects moves the state; a manual retry or cancel in the meantime wins.
        if (current.queued && current.state.attempts === p.delivery.state.attempts) {
          current.recordAttempt(p.result, deps.settings.retryPolicy, deps.random);
          attempt = current.state.attemptLog[current.state.attemptLog.length - 1];
          writes.push({ delivery: current, moveState: true, requestHeaders: recordedRequestHeaders(p.headerInput), leaseOwner: p.leaseOwner });
        } else {
          attempt = {
            number: p.attemptNumber,
            startedAt: p.result.startedAt,
            durationMs: p.result.durationMs,
            responseStatus: p.result.responseStatus,
            succeeded: isSuccessStatus(p.result.responseStatus) && p.result.error === null,
            error: p.result.error,
          };
          writes.push({ delivery: current, moveState: false, leaseOwner: p.leaseOwner });
        }
        attempts.push({ delivery: current, attempt });
        const endpoint = current.state.isTest ? undefined : endpoints.get(current.state.endpointId);
        if (endpoint) {
          const at = new Date(finishedAt(p));
          if (endpoint.recordAttempt(attempt.succeeded, at).autoDisabled) autoDisabled.push({ endpoint, at });
          touched.add(endpoint);
        }
      }
      await deps.deliveries.recordOutcomes(tx, writes, attempts);
      if (touched.size) await deps.endpoints.recordHealth(tx, [...touched]);
      for (const { endpoint, at } of autoDisabled) await deps.deliveries.cancelQueued(tx, endpoint.id, at);
      return new Map(ids.map((id) => [id, fresh.get(id) ?? null]));
    });
    return outcome;
  }
}

function finishedAt(p: PendingRecord): number {
  return p.kind === 'sent' ? p.result.startedAt.getTime() + p.result.durationMs : 0;
}
