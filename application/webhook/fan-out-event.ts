import type { StoredEvent } from '../../domain/ports/event-outbox';
import { SECRET_REVEALED_EVENT_TYPE, TEST_EVENT_TYPE } from '../../domain/webhook/event-types';
import { WebhookDelivery } from '../../domain/webhook/webhook-delivery';
import type { WebhookEndpoint } from '../../domain/webhook/webhook-endpoint';
import type { DispatchSlot, WebhookDeps } from './webhook-deps';

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
    const local = deps.localDispatch;
    const slots = new Map<string, DispatchSlot>();
    let planned: Array<{ delivery: WebhookDelivery; endpoint: WebhookEndpoint }> = [];
    let inserted: Set<string>;
    try {
      // Two round trips, no transaction: the listing, then ONE insert statement for every endpoint of the event,
      // atomic by itself. An endpoint switched off in between gets a delivery its worker cancels at send time.
      inserted = await deps.transactor.read(async (tx) => {
        const endpoints = (await deps.endpoints.listReceiving(tx, scope)).filter((e) => e.subscribesTo(event.type));
        if (endpoints.length === 0) return new Set<string>();
        const body = envelopeBody(event);
        const now = deps.clock.now();
        planned = endpoints.map((endpoint) => ({
          endpoint,
          delivery: WebhookDelivery.create({
            id: deps.ids.next('whd_'),
            organizationId: scope.organizationId,
            environment: scope.environment,
            endpointId: endpoint.id,
            eventId: event.id,
            eventType: event.type,
            body,
            now,
          }),
        }));
        // Deliveries this process's dispatcher has room for are leased to it and sent right after the insert.
        const rows = planned.map(({ delivery, endpoint }) => {
          const slot = local?.reserve(endpoint.id) ?? null;
          if (!slot || !local) return { delivery };
          slots.set(delivery.id, slot);
          return { delivery, lease: { owner: local.owner, until: new Date(now.getTime() + local.leaseMs) } };
        });
        return new Set(await deps.deliveries.insertManyIfAbsent(tx, rows));
      });
    } catch (error) {
      for (const slot of slots.values()) slot.release();
      throw error;
    }
    let queuedForClaim = 0;
    for (const { delivery, endpoint } of planned) {
      const slot = slots.get(delivery.id);
      if (!inserted.has(delivery.id)) slot?.release();
      else if (slot) slot.send(delivery, endpoint);
      else queuedForClaim += 1;
    }
    if (queuedForClaim > 0) deps.onDeliveriesDue?.();
    return inserted.size;
  }
}
