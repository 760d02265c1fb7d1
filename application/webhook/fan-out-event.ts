import type { StoredEvent } from '../../domain/ports/event-outbox';
import { SECRET_REVEALED_EVENT_TYPE, TEST_EVENT_TYPE, matchesSubscription } from '../../domain/webhook/event-types';
import { WebhookDelivery } from '../../domain/webhook/webhook-delivery';
import type { WebhookDeps } from './webhook-deps';

/** The body every delivery of an event carries: the public envelope, never the tenant id. */
export function envelopeBody(event: StoredEvent): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    apiVersion: event.apiVersion,
    createdAt: event.createdAt,
    environment: event.environment,
    sequence: event.sequence,
    data: event.data,
  });
}

/**
 * One delivery per subscribed endpoint of the event's organization and environment (spec: Events, Delivery).
 * Idempotent: deliveries are unique per (event, endpoint), so a redelivered stream message creates nothing new.
 */
export class FanOutEvent {
  constructor(private readonly deps: WebhookDeps) {}

  async execute(event: StoredEvent): Promise<number> {
    if (event.type === TEST_EVENT_TYPE || event.type === SECRET_REVEALED_EVENT_TYPE) return 0;
    const { deps } = this;
    const scope = { organizationId: event.organizationId, environment: event.environment };
    // Two round trips, no transaction: the listing, then ONE insert statement for every endpoint of the event,
    // atomic by itself. An endpoint switched off in between gets a delivery its worker cancels at send time.
    const created = await deps.transactor.read(async (tx) => {
      // Ids and subscriptions only: fan-out needs no secret, so none is opened per event.
      const subscribers = (await deps.endpoints.listSubscriptions(tx, scope)).filter((e) => matchesSubscription(e.enabledEvents, event.type));
      if (subscribers.length === 0) return 0;
      const body = envelopeBody(event);
      const now = deps.clock.now();
      const deliveries = subscribers.map((endpoint) =>
        WebhookDelivery.create({
          id: deps.ids.next('whd_'),
          organizationId: scope.organizationId,
          environment: scope.environment,
          endpointId: endpoint.id,
          eventId: event.id,
          eventType: event.type,
          body,
          now,
        }),
      );
      return deps.deliveries.insertManyIfAbsent(tx, deliveries);
    });
    if (created > 0) deps.onDeliveriesDue?.();
    return created;
  }
}
