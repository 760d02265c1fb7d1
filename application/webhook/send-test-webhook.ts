import { NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import { TEST_EVENT_TYPE } from '../../domain/webhook/event-types';
import { WebhookDelivery } from '../../domain/webhook/webhook-delivery';
import { AttemptDelivery } from './attempt-delivery';
import { envelopeBody } from './fan-out-event';
import type { WebhookDeps } from './webhook-deps';

/**
 * POST /v1/webhooks/{id}/test: a webhook_endpoint.test event (kept in the event log) and one delivery to this
 * endpoint only, sent during the request. The delivery is created leased to this request so the background
 * dispatcher leaves it alone; if the process dies mid-request the lease expires and the dispatcher sends it.
 */
export class SendTestWebhook {
  constructor(private readonly deps: WebhookDeps) {}

  async execute(scope: TenantScope, endpointId: string, requestId: string): Promise<{ delivery: WebhookDelivery; error: string | null }> {
    const { deps } = this;
    const leaseOwner = `test:${requestId}`;
    const deliveryId = await deps.transactor.run(async (tx) => {
      const endpoint = await deps.endpoints.find(tx, scope, endpointId);
      if (!endpoint) throw new NotFoundError('webhook endpoint', endpointId);
      endpoint.assertReceivesDeliveries();
      const [event] = await deps.outbox.append(tx, [
        {
          type: TEST_EVENT_TYPE,
          scope,
          object: { object: 'webhook_endpoint', id: endpoint.id, url: endpoint.state.url, status: endpoint.status, test: true },
        },
      ], { assignSequence: true }); // the body sent now must carry its sequence
      const now = deps.clock.now();
      const delivery = WebhookDelivery.create({
        id: deps.ids.next('whd_'),
        organizationId: scope.organizationId,
        environment: scope.environment,
        endpointId: endpoint.id,
        eventId: event.id,
        eventType: TEST_EVENT_TYPE,
        body: envelopeBody(event),
        isTest: true,
        now,
      });
      await deps.deliveries.insertIfAbsent(tx, delivery, { owner: leaseOwner, until: new Date(now.getTime() + deps.settings.timeoutMs + 30_000) });
      return delivery.id;
    });
    const outcome = await new AttemptDelivery(deps).execute(deliveryId, leaseOwner);
    if (!outcome.delivery) throw new NotFoundError('webhook delivery', deliveryId);
    return { delivery: outcome.delivery, error: outcome.error };
  }
}
