import { NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { WebhookDelivery } from '../../domain/webhook/webhook-delivery';
import type { WebhookDeps } from './webhook-deps';

/** POST .../deliveries/{id}/retry: from any state (even succeeded), attempts reset, due now; 409 on a switched-off endpoint. */
export class RetryWebhookDelivery {
  constructor(private readonly deps: WebhookDeps) {}

  async execute(scope: TenantScope, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
    const { deps } = this;
    const delivery = await deps.transactor.run(async (tx) => {
      const endpoint = await deps.endpoints.find(tx, scope, endpointId, { includeDeleted: true });
      if (!endpoint) throw new NotFoundError('webhook endpoint', endpointId);
      const found = await deps.deliveries.find(tx, scope, endpointId, deliveryId, { forUpdate: true });
      if (!found) throw new NotFoundError('webhook delivery', deliveryId);
      endpoint.assertReceivesDeliveries();
      found.manualRetry(deps.clock.now());
      await deps.deliveries.update(tx, found);
      return found;
    });
    deps.onDeliveriesDue?.();
    return delivery;
  }
}
