import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { AttemptDelivery, type PendingRecord } from '../../../application/webhook/attempt-delivery';
import { FanOutEvent } from '../../../application/webhook/fan-out-event';
import type { WebhookDeps } from '../../../application/webhook/webhook-deps';
import { WebhookDelivery } from '../../../domain/webhook/webhook-delivery';
import { WebhookEndpoint } from '../../../domain/webhook/webhook-endpoint';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { UlidIdGenerator } from '../../../infrastructure/clock/ulid-id-generator';
import { MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import { SqlWebhookDeliveryRepository } from '../../../infrastructure/persistence/webhook-delivery.repository';
import { SqlWebhookEndpointRepository } from '../../../infrastructure/persistence/webhook-endpoint.repository';
import { DEFAULT_RETRY_POLICY } from '../../../domain/webhook/retry-policy';
import { RecordingSigner, ScriptedSender, InMemoryOutbox } from '../../support/fakes/webhook-fakes';
import { createTestDatabase } from '../../support/test-infrastructure';

/** Batched attempt records on PostgreSQL: multi-row writes, the "still as claimed" guard, leases, health. */
describe('webhook attempt records (PostgreSQL)', () => {
  let orm: Orm;
  let deps: WebhookDeps;
  let clock: ManualClock;
  const scope = { organizationId: 'org_rec', environment: 'sandbox' as const };
  const deliveries = new SqlWebhookDeliveryRepository();
  const endpoints = new SqlWebhookEndpointRepository();

  before(async () => {
    orm = await openOrm(await createTestDatabase(), 4);
    await migrate(orm);
    clock = new ManualClock(new Date('2026-11-22T10:00:00.000Z'));
    deps = {
      transactor: new MikroOrmTransactor(orm),
      endpoints,
      deliveries,
      outbox: new InMemoryOutbox(clock),
      signer: new RecordingSigner(),
      sender: new ScriptedSender(clock),
      clock,
      ids: new UlidIdGenerator(),
      settings: { deployment: 'local', retryPolicy: DEFAULT_RETRY_POLICY, timeoutMs: 1_000 },
      random: () => 0.5,
    };
  });
  after(() => orm.close(true));

  const sql = <T>(text: string, params: unknown[] = []) => orm.em.fork({ useContext: false }).execute<T[]>(text, params);

  async function newEndpoint(url: string): Promise<WebhookEndpoint> {
    const endpoint = WebhookEndpoint.register({ id: deps.ids.next('we_'), ...scope, deployment: 'local', url, enabledEvents: ['*'], secret: 'whsec_x', now: clock.now() });
    await deps.transactor.run((tx) => endpoints.insert(tx, endpoint));
    return endpoint;
  }

  async function queued(endpoint: WebhookEndpoint, n: number, owner = 'worker-1'): Promise<WebhookDelivery[]> {
    const created = Array.from({ length: n }, (_, i) =>
      WebhookDelivery.create({ id: deps.ids.next('whd_'), ...scope, endpointId: endpoint.id, eventId: deps.ids.next('evt_'), eventType: 'payment.captured', body: `{"n":${i}}`, now: clock.now() }),
    );
    const until = new Date(clock.now().getTime() + 60_000);
    await deps.transactor.read((tx) => deliveries.insertManyIfAbsent(tx, created.map((delivery) => ({ delivery, lease: { owner, until } }))));
    return created;
  }

  const sent = (delivery: WebhookDelivery, status: number | null, at = clock.now()): PendingRecord => ({
    kind: 'sent',
    delivery,
    leaseOwner: 'worker-1',
    attemptNumber: delivery.nextAttemptNumber(),
    headerInput: { eventId: delivery.state.eventId, eventType: delivery.state.eventType, attempt: delivery.nextAttemptNumber(), apiVersion: '', customHeaders: {} },
    result: { startedAt: at, durationMs: 5, responseStatus: status, responseBody: status === null ? null : `answer ${status}`, error: status === null ? 'ECONNREFUSED' : null },
  });

  it('records a batch in one transaction: states, attempt rows numbered per delivery, leases released, endpoint health', async () => {
    const endpoint = await newEndpoint('http://127.0.0.1:9/batch');
    const [a, b, c] = await queued(endpoint, 3);
    const attempt = new AttemptDelivery(deps);
    await attempt.record([sent(a, 200), sent(b, 500), sent(c, null)]);

    const rows = await sql<{ id: string; status: string; attempts: number; lease_owner: string | null; last_response: unknown; request_headers: unknown }>(
      `select id, status, attempts, lease_owner, last_response, request_headers from webhook_deliveries where endpoint_id = ? order by id`,
      [endpoint.id],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(a.id)).to.deep.include({ status: 'succeeded', attempts: 1, lease_owner: null, last_response: { status: 200, body: 'answer 200', truncated: false } });
    expect(byId.get(b.id)).to.deep.include({ status: 'failed', attempts: 1, lease_owner: null });
    expect(byId.get(c.id)).to.deep.include({ status: 'failed', attempts: 1, lease_owner: null, last_response: null });
    expect(byId.get(a.id)!.request_headers).to.have.property('Service-Event-Id', a.state.eventId);
    const health = await sql<{ consecutive_failures: number; status: string }>(`select consecutive_failures, status from webhook_endpoints where id = ?`, [endpoint.id]);
    // In finishing order: success, then two failures.
    expect(health[0]).to.deep.equal({ consecutive_failures: 2, status: 'failing' });

    // The next attempt of b is listed after its first (seq orders a delivery's attempts).
    const [bAgain] = await deps.transactor.read((tx) => deliveries.findByIds(tx, [b.id]));
    await sql(`update webhook_deliveries set lease_owner = 'worker-1' where id = ?`, [b.id]);
    await attempt.record([sent(bAgain, 204)]);
    const seqs = await sql<{ number: number; succeeded: boolean }>(`select number, succeeded from webhook_delivery_attempts where delivery_id = ? order by seq`, [b.id]);
    expect(seqs).to.deep.equal([{ number: 1, succeeded: false }, { number: 2, succeeded: true }]);
  });

  it('stores a delivery body out of line once: recording attempts keeps it where it is', async () => {
    const endpoint = await newEndpoint('http://127.0.0.1:9/toast');
    // An envelope like a payment's (1.7 kB, about 1 kB compressed): small enough to stay in the row, compressed, with
    // PostgreSQL's default toast target, so every version an outcome writes would carry a copy of it.
    const body = JSON.stringify({ id: 'evt_big', data: { object: { id: 'pay_big', description: 'card payment '.repeat(120), note: randomBytes(450).toString('hex') } } });
    const delivery = WebhookDelivery.create({ id: deps.ids.next('whd_'), ...scope, endpointId: endpoint.id, eventId: deps.ids.next('evt_'), eventType: 'payment.captured', body, now: clock.now() });
    await deps.transactor.read((tx) => deliveries.insertManyIfAbsent(tx, [{ delivery, lease: { owner: 'worker-1', until: new Date(clock.now().getTime() + 60_000) } }]));
    const [{ toast }] = await sql<{ toast: string }>(`select reltoastrelid::regclass::text as toast from pg_class where relname = 'webhook_deliveries'`);
    const chunks = async () => (await sql<{ chunk_id: number }>(`select distinct chunk_id from ${toast} order by chunk_id`)).map((row) => Number(row.chunk_id));
    const before = await chunks();
    expect(before, 'the body is stored out of line').to.not.be.empty;

    await new AttemptDelivery(deps).record([sent(delivery, 500)]);
    expect(await chunks(), 'the new row version points at the same stored body').to.deep.equal(before);
    const [row] = await sql<{ body: string; status: string }>(`select body, status from webhook_deliveries where id = ?`, [delivery.id]);
    expect(row).to.deep.equal({ body, status: 'failed' });
  });

  it('keeps a manual retry or a cancel made while the attempt was in flight, and still stores the attempt', async () => {
    const endpoint = await newEndpoint('http://127.0.0.1:9/late');
    const [retried, canceled] = await queued(endpoint, 2);
    // Meanwhile: a manual retry resets one (already attempted once), the endpoint's switch-off cancels the other.
    await sql(`update webhook_deliveries set attempts = 0, status = 'pending', updated_at = now() where id = ?`, [retried.id]);
    const attemptedOnce = WebhookDelivery.restore({ ...retried.state, attempts: 1, status: 'failed' });
    await sql(`update webhook_deliveries set status = 'disabled', next_retry_at = null where id = ?`, [canceled.id]);
    await new AttemptDelivery(deps).record([sent(attemptedOnce, 500), sent(canceled, 200)]);

    const rows = await sql<{ id: string; status: string; attempts: number; lease_owner: string | null }>(
      `select id, status, attempts, lease_owner from webhook_deliveries where endpoint_id = ?`,
      [endpoint.id],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(retried.id)).to.deep.equal({ id: retried.id, status: 'pending', attempts: 0, lease_owner: null });
    expect(byId.get(canceled.id)).to.deep.equal({ id: canceled.id, status: 'disabled', attempts: 0, lease_owner: null });
    const attempts = await sql<{ delivery_id: string; number: number }>(
      `select delivery_id, number from webhook_delivery_attempts where endpoint_id = ? order by delivery_id`,
      [endpoint.id],
    );
    expect(attempts).to.have.length(2);
  });

  it('gives back the lease of a delivery it did not send, changing nothing else unless it cancels it', async () => {
    const endpoint = await newEndpoint('http://127.0.0.1:9/skipped');
    const [kept, canceled] = await queued(endpoint, 2);
    await new AttemptDelivery(deps).record([
      { kind: 'skipped', delivery: kept, leaseOwner: 'worker-1', cancel: false },
      { kind: 'skipped', delivery: canceled, leaseOwner: 'worker-1', cancel: true },
    ]);
    const rows = await sql<{ id: string; status: string; attempts: number; lease_owner: string | null; lease_until: Date | null }>(
      `select id, status, attempts, lease_owner, lease_until from webhook_deliveries where endpoint_id = ?`,
      [endpoint.id],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(kept.id)).to.deep.equal({ id: kept.id, status: 'pending', attempts: 0, lease_owner: null, lease_until: null });
    expect(byId.get(canceled.id)).to.deep.equal({ id: canceled.id, status: 'disabled', attempts: 0, lease_owner: null, lease_until: null });
    expect(await sql(`select 1 from webhook_delivery_attempts where endpoint_id = ?`, [endpoint.id])).to.be.empty;
  });

  it('releases only its own lease', async () => {
    const endpoint = await newEndpoint('http://127.0.0.1:9/lease');
    const [mine] = await queued(endpoint, 1);
    // The lease expired and another worker holds the delivery now.
    await sql(`update webhook_deliveries set lease_owner = 'worker-2' where id = ?`, [mine.id]);
    await new AttemptDelivery(deps).record([sent(mine, 200)]);
    const [row] = await sql<{ lease_owner: string | null }>(`select lease_owner from webhook_deliveries where id = ?`, [mine.id]);
    expect(row.lease_owner).to.equal('worker-2');
  });

  it('fan-out inserts every endpoint of an event in one statement, once', async () => {
    const org = { organizationId: 'org_fan', environment: 'sandbox' as const };
    for (const path of ['/f1', '/f2', '/f3']) {
      const endpoint = WebhookEndpoint.register({
        id: deps.ids.next('we_'), ...org, deployment: 'local', url: `http://127.0.0.1:9${path}`, enabledEvents: ['payment.*'], secret: 'whsec_y', now: clock.now(),
      });
      await deps.transactor.run((tx) => endpoints.insert(tx, endpoint));
    }
    const event = {
      id: 'evt_fan_1', type: 'payment.captured', apiVersion: '2026-01-01', createdAt: clock.now().toISOString(), environment: 'sandbox' as const,
      sequence: 1, data: { object: { object: 'payment', id: 'pay_1' }, previousAttributes: null }, organizationId: org.organizationId,
    };
    const fanOut = new FanOutEvent(deps);
    expect(await fanOut.execute(event)).to.equal(3);
    expect(await fanOut.execute(event)).to.equal(0);
    const [{ n }] = await sql<{ n: number }>(`select count(*)::int as n from webhook_deliveries where event_id = 'evt_fan_1'`);
    expect(n).to.equal(3);
  });

  it('stores each delivery\'s own body, sending every distinct body once per statement', async () => {
    const endpoint = await newEndpoint('http://127.0.0.1:9/bodies');
    const bodies = ['{"shared":"é \\" \' \\\\ ; --"}', '{"shared":"é \\" \' \\\\ ; --"}', '{"other":1}', '{"shared":"é \\" \' \\\\ ; --"}'];
    const created = bodies.map((body) =>
      WebhookDelivery.create({ id: deps.ids.next('whd_'), ...scope, endpointId: endpoint.id, eventId: deps.ids.next('evt_'), eventType: 'payment.captured', body, now: clock.now() }),
    );
    await deps.transactor.read((tx) => deliveries.insertManyIfAbsent(tx, created.map((delivery) => ({ delivery }))));
    const stored = await sql<{ id: string; body: string }>(`select id, body from webhook_deliveries where endpoint_id = ?`, [endpoint.id]);
    const byId = new Map(stored.map((row) => [row.id, row.body]));
    expect(created.map((delivery) => byId.get(delivery.id))).to.deep.equal(bodies);
  });
});
