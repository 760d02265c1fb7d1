import type { WebhookDelivery, DeliveryAttempt } from '../../domain/webhook/webhook-delivery';
import { isSuccessStatus } from '../../domain/webhook/webhook-delivery';
import { deliveryHeaders, recordedRequestHeaders } from '../../domain/webhook/delivery-headers';
import type { WebhookDeps } from './webhook-deps';

export interface AttemptOutcome {
  readonly delivery: WebhookDelivery | null;
  readonly sent: boolean;
}

function apiVersionOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { apiVersion?: unknown };
    return typeof parsed.apiVersion === 'string' ? parsed.apiVersion : '';
  } catch {
    return '';
  }
}

/**
 * Makes one attempt of a delivery the caller holds the lease of. No transaction is open while the HTTP call
 * runs: read, send (signature recomputed now, since the timestamp is part of it), then record the outcome,
 * the endpoint's health and a possible auto-disable in one transaction, and release the lease.
 */
export class AttemptDelivery {
  constructor(private readonly deps: WebhookDeps) {}

  async execute(deliveryId: string, leaseOwner: string): Promise<AttemptOutcome> {
    const { deps } = this;
    const loaded = await deps.transactor.read(async (tx) => {
      const delivery = await deps.deliveries.findById(tx, deliveryId);
      const endpoint = delivery ? await deps.endpoints.findById(tx, delivery.state.endpointId) : null;
      return { delivery, endpoint };
    });
    const { delivery, endpoint } = loaded;
    if (!delivery || !delivery.queued) {
      await deps.transactor.run((tx) => deps.deliveries.releaseLease(tx, deliveryId, leaseOwner));
      return { delivery, sent: false };
    }
    if (!endpoint || !endpoint.receivesDeliveries()) {
      // Endpoint switched off or removed after this delivery was queued.
      const now = deps.clock.now();
      const canceled = await deps.transactor.run(async (tx) => {
        const fresh = await deps.deliveries.findById(tx, deliveryId, { forUpdate: true });
        if (fresh && fresh.cancelForSwitchedOffEndpoint(now)) await deps.deliveries.update(tx, fresh);
        await deps.deliveries.releaseLease(tx, deliveryId, leaseOwner);
        return fresh;
      });
      return { delivery: canceled, sent: false };
    }

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

    const result = {
      startedAt: response.startedAt,
      durationMs: response.durationMs,
      responseStatus: response.status,
      responseBody: response.body,
      error: response.error,
    };
    const finishedAt = new Date(response.startedAt.getTime() + response.durationMs);
    const recorded = await deps.transactor.run(async (tx) => {
      // Lock order endpoint -> delivery, the same as PATCH/DELETE (which lock the endpoint, then cancel its deliveries).
      const ep = delivery.state.isTest ? null : await deps.endpoints.findById(tx, delivery.state.endpointId, { forUpdate: true });
      const fresh = await deps.deliveries.findById(tx, deliveryId, { forUpdate: true });
      if (!fresh) return null;
      let attempt: DeliveryAttempt;
      // Only the attempt the state expects moves the state; a manual retry or cancel in the meantime wins.
      if (fresh.queued && fresh.state.attempts === delivery.state.attempts) {
        fresh.recordAttempt(result, deps.settings.retryPolicy, deps.random);
        attempt = fresh.state.attemptLog[fresh.state.attemptLog.length - 1];
        await deps.deliveries.update(tx, fresh, recordedRequestHeaders(headerInput));
      } else {
        attempt = {
          number: attemptNumber,
          startedAt: result.startedAt,
          durationMs: result.durationMs,
          responseStatus: result.responseStatus,
          succeeded: isSuccessStatus(result.responseStatus) && result.error === null,
          error: result.error,
        };
      }
      await deps.deliveries.appendAttempt(tx, { delivery: fresh, attempt });
      // Test deliveries are diagnostics: they do not move the endpoint's health.
      if (!fresh.state.isTest) {
        if (ep) {
          const { autoDisabled } = ep.recordAttempt(attempt.succeeded, finishedAt);
          await deps.endpoints.update(tx, ep);
          if (autoDisabled) await deps.deliveries.cancelQueued(tx, ep.id, finishedAt);
        }
      }
      await deps.deliveries.releaseLease(tx, deliveryId, leaseOwner);
      return fresh;
    });
    return { delivery: recorded, sent: true };
  }
}
