import { expect } from 'chai';
import type { AttemptDelivery, PendingRecord } from '../../../application/webhook/attempt-delivery';
import { WebhookDelivery } from '../../../domain/webhook/webhook-delivery';
import { WebhookEndpoint } from '../../../domain/webhook/webhook-endpoint';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { UlidIdGenerator } from '../../../infrastructure/clock/ulid-id-generator';
import { createLogger } from '../../../infrastructure/logging/logger';
import { WebhookDeliveryDispatcher } from '../../../infrastructure/messaging/webhook-delivery-dispatcher';
import { MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import { SqlWebhookDeliveryRepository } from '../../../infrastructure/persistence/webhook-delivery.repository';
import { SqlWebhookEndpointRepository } from '../../../infrastructure/persistence/webhook-endpoint.repository';
import { eventually } from '../../support/eventually';
import { createTestDatabase } from '../../support/test-infrastructure';

/**
 * Claims on PostgreSQL bound each endpoint's leased deliveries: `perEndpoint` for a healthy endpoint, and
 * `failingPerEndpoint` for one whose latest attempt from this worker failed, so a dead endpoint holds a few slots.
 */
describe('webhook dispatcher claims: per-endpoint bounds (PostgreSQL)', () => {
  let orm: Orm;
  const ids = new UlidIdGenerator();
  const clock = new ManualClock(new Date());
  const scope = { organizationId: 'org_bounds', environment: 'sandbox' as const };
  const deliveries = new SqlWebhookDeliveryRepository();

  before(async () => {
    orm = await openOrm(await createTestDatabase(), 2);
    await migrate(orm);
  });
  after(() => orm.close(true));

  async function endpoint(path: string): Promise<WebhookEndpoint> {
    const created = WebhookEndpoint.register({ id: ids.next('we_'), ...scope, deployment: 'local', url: `http://127.0.0.1:9${path}`, enabledEvents: ['*'], secret: 'whsec_b', now: clock.now() });
    await new MikroOrmTransactor(orm).run((tx) => new SqlWebhookEndpointRepository().insert(tx, created));
    return created;
  }

  function due(endpointId: string, n: number): WebhookDelivery[] {
    return Array.from({ length: n }, () =>
      WebhookDelivery.create({ id: ids.next('whd_'), ...scope, endpointId, eventId: ids.next('evt_'), eventType: 'payment.captured', body: '{}', now: clock.now() }),
    );
  }

  it('claims at most failingPerEndpoint for an endpoint whose latest attempt failed, perEndpoint for the others', async () => {
    const [down, up] = [await endpoint('/down'), await endpoint('/up')];
    const started: string[] = [];
    let first = true;
    const attempt = {
      // The first attempt (a handover to `down`) fails at once; every later one stays open, holding its lease.
      send: (delivery: WebhookDelivery) => {
        started.push(delivery.state.endpointId);
        if (!first) return new Promise<PendingRecord>(() => undefined);
        first = false;
        return Promise.resolve<PendingRecord>({
          kind: 'sent', delivery, leaseOwner: 'w1', attemptNumber: 1,
          headerInput: { eventId: delivery.state.eventId, eventType: delivery.state.eventType, attempt: 1, apiVersion: '', customHeaders: {} },
          result: { startedAt: clock.now(), durationMs: 10_000, responseStatus: null, responseBody: null, error: 'no answer within 10000 ms' },
        });
      },
      record: async () => undefined,
      endpointsOf: async (claimed: readonly WebhookDelivery[]) => new Map(claimed.map((d) => [d.state.endpointId, d.state.endpointId === down.id ? down : up])),
    } as unknown as AttemptDelivery;
    const dispatcher = new WebhookDeliveryDispatcher(orm, attempt, clock, createLogger('silent'), {
      workerId: 'w1', perEndpoint: 5, failingPerEndpoint: 2, maxConcurrent: 100, pollIntervalMs: 60_000, leaseMs: 15_000,
    });
    dispatcher.start();
    try {
      // The empty queue's first claim allows handovers; one to `down` fails.
      const slot = await eventually(() => dispatcher.reserve(down.id));
      slot.send(due(down.id, 1)[0]!, down);
      await eventually(() => started.length === 1 && dispatcher.activeAttempts === 0);

      await new MikroOrmTransactor(orm).read((tx) => deliveries.insertManyIfAbsent(tx, [...due(down.id, 8), ...due(up.id, 8)].map((delivery) => ({ delivery }))));
      dispatcher.nudge();
      await eventually(() => started.length >= 1 + 2 + 5);
      // Nothing more is claimed while those leases are held.
      dispatcher.nudge();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const later = started.slice(1);
      expect(later.filter((id) => id === down.id), 'the failing endpoint').to.have.length(2);
      expect(later.filter((id) => id === up.id), 'the healthy endpoint').to.have.length(5);
    } finally {
      await Promise.race([dispatcher.stop(), new Promise((resolve) => setTimeout(resolve, 500))]);
    }
  });
});
