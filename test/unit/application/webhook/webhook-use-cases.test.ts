import { expect } from 'chai';
import chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { AttemptDelivery } from '../../../../application/webhook/attempt-delivery';
import { FanOutEvent } from '../../../../application/webhook/fan-out-event';
import { CreateWebhookEndpoint, DeleteWebhookEndpoint, RevealWebhookSecret, RotateWebhookSecret, UpdateWebhookEndpoint } from '../../../../application/webhook/manage-webhook-endpoints';
import { RetryWebhookDelivery } from '../../../../application/webhook/retry-webhook-delivery';
import { SendTestWebhook } from '../../../../application/webhook/send-test-webhook';
import type { StoredEvent } from '../../../../domain/ports/event-outbox';
import { webhookWorld, type WebhookWorld } from '../../../support/fakes/webhook-fakes';

chai.use(chaiAsPromised);

const scope = { organizationId: 'org_1', environment: 'sandbox' as const };
const DAY = 24 * 3600 * 1000;

function event(overrides: Partial<StoredEvent> = {}): StoredEvent {
  return {
    id: 'evt_a', type: 'payment.captured', apiVersion: '2026-01-01', createdAt: '2026-01-10T00:00:00.000Z', environment: 'sandbox',
    sequence: 7, data: { object: { object: 'payment', id: 'pay_1' }, previousAttributes: null }, organizationId: 'org_1', ...overrides,
  };
}

async function endpoint(w: WebhookWorld, url = 'https://hooks.example.com/a', enabledEvents = ['payment.*'], customHeaders = {}) {
  return new CreateWebhookEndpoint(w.deps).execute(scope, { url, enabledEvents, customHeaders });
}

describe('webhook use cases (in-memory ports)', () => {
  describe('CreateWebhookEndpoint', () => {
    it('refuses the 21st endpoint of an environment with webhook_endpoint_limit_reached', async () => {
      const w = webhookWorld();
      for (let i = 0; i < 20; i++) await endpoint(w, `https://hooks.example.com/${i}`);
      await expect(endpoint(w, 'https://hooks.example.com/21')).to.be.rejectedWith('At most 20').and.eventually.have.property('code', 'webhook_endpoint_limit_reached');
      await new CreateWebhookEndpoint(w.deps).execute({ ...scope, environment: 'live' }, { url: 'https://hooks.example.com/21', enabledEvents: ['*'] });
    });
  });

  describe('FanOutEvent', () => {
    it('creates one delivery per subscribed receiving endpoint of the same tenant, once', async () => {
      const w = webhookWorld();
      const a = await endpoint(w, 'https://hooks.example.com/a', ['payment.*']);
      await endpoint(w, 'https://hooks.example.com/b', ['recipient.updated']);
      const off = await endpoint(w, 'https://hooks.example.com/c', ['*']);
      await new UpdateWebhookEndpoint(w.deps).execute(scope, off.id, { enabled: false });
      await new CreateWebhookEndpoint(w.deps).execute({ ...scope, environment: 'live' }, { url: 'https://hooks.example.com/a', enabledEvents: ['*'] });
      const fanOut = new FanOutEvent(w.deps);
      expect(await fanOut.execute(event())).to.equal(1);
      expect(await fanOut.execute(event())).to.equal(0);
      const [delivery] = [...w.deliveries.rows.values()];
      expect(delivery.endpointId).to.equal(a.id);
      expect(JSON.parse(delivery.body)).to.deep.equal({
        id: 'evt_a', type: 'payment.captured', apiVersion: '2026-01-01', createdAt: '2026-01-10T00:00:00.000Z', environment: 'sandbox', sequence: 7,
        data: { object: { object: 'payment', id: 'pay_1' }, previousAttributes: null },
      });
      expect(w.dueNudges).to.equal(1);
    });
    it('hands deliveries the local dispatcher has room for over leased to it; the rest wait for the claim', async () => {
      const w = webhookWorld();
      const a = await endpoint(w, 'https://hooks.example.com/a', ['payment.*']);
      const b = await endpoint(w, 'https://hooks.example.com/b', ['payment.*']);
      const sent: Array<{ deliveryId: string; endpointId: string; stored: boolean | 'already' }> = [];
      let released = 0;
      const fanOut = new FanOutEvent({
        ...w.deps,
        localDispatch: {
          owner: 'worker-1',
          leaseMs: 15_000,
          // Room for endpoint a only (b is at its limit).
          reserve: (endpointId) =>
            endpointId === a.id
              ? {
                  send: (delivery, ep, stored) => {
                    const entry = { deliveryId: delivery.id, endpointId: ep.id, stored: 'already' as boolean | 'already' };
                    sent.push(entry);
                    void stored?.then((yes) => (entry.stored = yes));
                  },
                  release: () => (released += 1),
                }
              : null,
        },
      });
      expect(await fanOut.execute(event())).to.equal(2);
      const rows = [...w.deliveries.rows.values()];
      const toA = rows.find((r) => r.endpointId === a.id)!;
      const toB = rows.find((r) => r.endpointId === b.id)!;
      expect(sent).to.deep.equal([{ deliveryId: toA.id, endpointId: a.id, stored: true }]);
      expect(w.deliveries.leases.get(toA.id)).to.equal('worker-1');
      expect(w.deliveries.leases.has(toB.id)).to.equal(false);
      expect(w.dueNudges).to.equal(1);
      // The stream offers the event again: it creates nothing, the reserved place is given back, nothing is sent twice.
      expect(await fanOut.execute(event(), { redelivered: true })).to.equal(0);
      expect(sent).to.have.length(1);
      expect(released).to.equal(1);
      expect(w.dueNudges).to.equal(1);
    });
    it('sends a first-time event\'s handed-over deliveries while their rows are inserted, and tells the dispatcher whether they were stored', async () => {
      const w = webhookWorld();
      const a = await endpoint(w, 'https://hooks.example.com/a', ['payment.*']);
      const order: string[] = [];
      const stored: Array<Promise<boolean>> = [];
      const insertManyIfAbsent = w.deps.deliveries.insertManyIfAbsent.bind(w.deps.deliveries);
      let failInsert = false;
      w.deps.deliveries.insertManyIfAbsent = async (tx, rows) => {
        order.push('insert started');
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (failInsert) throw new Error('database gone');
        const ids = await insertManyIfAbsent(tx, rows);
        order.push('insert committed');
        return ids;
      };
      const fanOut = new FanOutEvent({
        ...w.deps,
        localDispatch: {
          owner: 'worker-1',
          leaseMs: 15_000,
          reserve: () => ({
            send: (delivery, ep, whenStored) => {
              order.push(`sent ${ep.id}`);
              stored.push(whenStored ?? Promise.resolve(true));
            },
            release: () => order.push('released'),
          }),
        },
      });
      expect(await fanOut.execute(event())).to.equal(1);
      expect(order).to.deep.equal(['insert started', `sent ${a.id}`, 'insert committed']);
      expect(await stored[0]).to.equal(true);
      // Not inserted (an earlier fan-out of the event created it, yet the stream did not say so): sent, never recorded.
      expect(await fanOut.execute(event())).to.equal(0);
      expect(await stored[1]).to.equal(false);
      // The insert fails: the event is refused (the stream offers it again) and nothing is recorded for the send.
      failInsert = true;
      await expect(fanOut.execute(event({ id: 'evt_b' }))).to.be.rejectedWith('database gone');
      expect(await stored[2]).to.equal(false);
      expect(order.filter((step) => step === 'released')).to.deep.equal([]);
    });
    it('fans out events handled together in one batch, each to its own tenant, each with its own count', async () => {
      const w = webhookWorld();
      const a = await endpoint(w, 'https://hooks.example.com/a', ['payment.*']);
      const other = await new CreateWebhookEndpoint(w.deps).execute({ organizationId: 'org_2', environment: 'sandbox' }, { url: 'https://hooks.example.com/o', enabledEvents: ['*'] });
      const live = await new CreateWebhookEndpoint(w.deps).execute({ ...scope, environment: 'live' }, { url: 'https://hooks.example.com/l', enabledEvents: ['*'] });
      let listings = 0;
      const listReceiving = w.deps.endpoints.listReceiving.bind(w.deps.endpoints);
      w.deps.endpoints.listReceiving = async (tx, scopes) => {
        listings += 1;
        return listReceiving(tx, scopes);
      };
      const fanOut = new FanOutEvent(w.deps);
      const counts = await Promise.all([
        fanOut.execute(event({ id: 'evt_1' })),
        fanOut.execute(event({ id: 'evt_2', organizationId: 'org_2' })),
        fanOut.execute(event({ id: 'evt_3', environment: 'live' })),
        fanOut.execute(event({ id: 'evt_4', type: 'recipient.updated' })), // org_1 sandbox has no endpoint for it
        fanOut.execute(event({ id: 'evt_5', organizationId: 'org_2' })),
      ]);
      expect(counts).to.deep.equal([1, 1, 1, 0, 1]);
      const byEvent = [...w.deliveries.rows.values()].map((d) => `${d.eventId}>${d.endpointId}`).sort();
      expect(byEvent).to.deep.equal([`evt_1>${a.id}`, `evt_2>${other.id}`, `evt_3>${live.id}`, `evt_5>${other.id}`].sort());
      expect(listings).to.be.below(5); // events that arrived while a batch ran shared the next listing
    });
    it('never fans out the test event or the secret-reveal audit record', async () => {
      const w = webhookWorld();
      await endpoint(w, 'https://hooks.example.com/a', ['*']);
      expect(await new FanOutEvent(w.deps).execute(event({ type: 'webhook_endpoint.test' }))).to.equal(0);
      expect(await new FanOutEvent(w.deps).execute(event({ type: 'webhook_endpoint.secret_revealed' }))).to.equal(0);
    });
  });

  describe('AttemptDelivery', () => {
    async function queued(w: WebhookWorld, customHeaders: Record<string, string> = {}) {
      const ep = await endpoint(w, 'https://hooks.example.com/a', ['payment.*'], customHeaders);
      await new FanOutEvent(w.deps).execute(event());
      const id = [...w.deliveries.rows.keys()][0];
      w.deliveries.leases.set(id, 'worker-1');
      return { ep, id };
    }

    it('sends the spec headers with a signature of the current secrets, then records success and releases the lease', async () => {
      const w = webhookWorld();
      const { ep, id } = await queued(w, { 'X-Key': 'abcdefghijkl9999' });
      await new AttemptDelivery(w.deps).execute(id, 'worker-1');
      const sent = w.sender.sent[0];
      expect(sent.url).to.equal('https://hooks.example.com/a');
      expect(sent.timeoutMs).to.equal(10_000);
      expect(sent.headers).to.deep.equal({
        'X-Key': 'abcdefghijkl9999',
        'Content-Type': 'application/json',
        'User-Agent': 'Service-Webhooks/1.0',
        'Service-Signature': `t=${Math.floor(w.clock.now().getTime() / 1000)},v1=${ep.state.secret}`,
        'Service-Event-Id': 'evt_a',
        'Service-Event-Type': 'payment.captured',
        'Service-Delivery-Attempt': '1',
        'Service-Version': '2026-01-01',
      });
      expect(w.deliveries.rows.get(id)!.status).to.equal('succeeded');
      expect(w.deliveries.leases.has(id)).to.equal(false);
      expect(w.deliveries.requestHeaders.get(id)!['X-Key']).to.match(/^\*+9999$/);
      expect(w.deliveries.requestHeaders.get(id)).not.to.have.property('Service-Signature');
      expect(w.endpoints.rows.get(ep.id)!.lastSuccessAt).to.be.instanceOf(Date);
    });

    it('on failure schedules the next attempt per the policy and counts a consecutive failure', async () => {
      const w = webhookWorld();
      const { ep, id } = await queued(w);
      w.sender.answer = () => ({ status: 500, body: 'no', error: null });
      await new AttemptDelivery(w.deps).execute(id, 'worker-1');
      const row = w.deliveries.rows.get(id)!;
      expect(row.status).to.equal('failed');
      expect(row.nextRetryAt!.getTime() - w.clock.now().getTime()).to.equal(30_000 + 12);
      expect(w.endpoints.rows.get(ep.id)).to.include({ status: 'failing', consecutiveFailures: 1 });
      w.clock.advance(31_000);
      w.sender.answer = () => ({ status: 200, body: 'ok', error: null });
      await new AttemptDelivery(w.deps).execute(id, 'worker-1');
      expect(w.sender.sent[1].headers['Service-Delivery-Attempt']).to.equal('2');
      expect(w.sender.sent[1].headers['Service-Signature']).not.to.equal(w.sender.sent[0].headers['Service-Signature']);
      expect(w.endpoints.rows.get(ep.id)).to.include({ status: 'active', consecutiveFailures: 0 });
    });

    it('signs with both secrets inside the rotation window', async () => {
      const w = webhookWorld();
      const { ep, id } = await queued(w);
      const old = ep.state.secret;
      const rotated = await new RotateWebhookSecret(w.deps).execute(scope, ep.id);
      await new AttemptDelivery(w.deps).execute(id, 'worker-1');
      expect(w.sender.sent[0].headers['Service-Signature']).to.match(new RegExp(`v1=${rotated.state.secret},v1=${old}$`));
    });

    it('does not send, and cancels, when the endpoint was switched off after queuing', async () => {
      const w = webhookWorld();
      const { ep, id } = await queued(w);
      w.endpoints.rows.set(ep.id, { ...w.endpoints.rows.get(ep.id)!, status: 'disabled' });
      await new AttemptDelivery(w.deps).execute(id, 'worker-1');
      expect(w.sender.sent).to.have.length(0);
      expect(w.deliveries.rows.get(id)!.status).to.equal('disabled');
    });

    it('keeps a late outcome as an attempt record without undoing a cancel that happened mid-flight', async () => {
      const w = webhookWorld();
      const { ep, id } = await queued(w);
      w.sender.duringSend = async () => {
        await new UpdateWebhookEndpoint(w.deps).execute(scope, ep.id, { enabled: false });
      };
      await new AttemptDelivery(w.deps).execute(id, 'worker-1');
      expect(w.deliveries.rows.get(id)!.status).to.equal('disabled');
      expect(w.deliveries.attempts).to.have.length(1);
      expect(w.endpoints.rows.get(ep.id)!.status).to.equal('disabled');
    });

    it('auto-disables on the 20th failure after 3 days and cancels the rest of the queue', async () => {
      const w = webhookWorld();
      const ep = await endpoint(w);
      w.clock.advance(3 * DAY);
      w.endpoints.rows.set(ep.id, { ...w.endpoints.rows.get(ep.id)!, status: 'failing', consecutiveFailures: 19 });
      await new FanOutEvent(w.deps).execute(event({ id: 'evt_1' }));
      await new FanOutEvent(w.deps).execute(event({ id: 'evt_2' }));
      const [first, second] = [...w.deliveries.rows.keys()];
      w.sender.answer = () => ({ status: null, body: null, error: 'ECONNREFUSED' });
      await new AttemptDelivery(w.deps).execute(first, 'worker-1');
      expect(w.endpoints.rows.get(ep.id)).to.include({ status: 'auto_disabled', consecutiveFailures: 20 });
      expect(w.deliveries.rows.get(first)!.status).to.equal('disabled');
      expect(w.deliveries.rows.get(second)!.status).to.equal('disabled');
    });

    it('test deliveries do not move endpoint health', async () => {
      const w = webhookWorld();
      const ep = await endpoint(w);
      w.sender.answer = () => ({ status: 500, body: 'boom', error: null });
      const { delivery: d, error } = await new SendTestWebhook(w.deps).execute(scope, ep.id, 'req_1');
      expect(error, 'the server answered').to.equal(null);
      expect(d.state).to.include({ status: 'failed', isTest: true, nextRetryAt: null });
      expect(d.state.lastResponse).to.deep.equal({ status: 500, body: 'boom', truncated: false });
      expect(w.endpoints.rows.get(ep.id)).to.include({ status: 'active', consecutiveFailures: 0 });
      expect(w.outbox.events.map((e) => e.type)).to.deep.equal(['webhook_endpoint.test']);
    });
  });

  describe('management', () => {
    it('disabling and deleting cancel queued deliveries and report how many', async () => {
      const w = webhookWorld();
      const ep = await endpoint(w);
      await new FanOutEvent(w.deps).execute(event({ id: 'evt_1' }));
      await new FanOutEvent(w.deps).execute(event({ id: 'evt_2' }));
      const r = await new UpdateWebhookEndpoint(w.deps).execute(scope, ep.id, { enabled: false });
      expect(r.canceledDeliveries).to.equal(2);
      const noEnabled = await new UpdateWebhookEndpoint(w.deps).execute(scope, ep.id, { description: 'x' });
      expect(noEnabled.canceledDeliveries).to.equal(null);
      const ep2 = await endpoint(w, 'https://hooks.example.com/b');
      await new FanOutEvent(w.deps).execute(event({ id: 'evt_3' }));
      expect((await new DeleteWebhookEndpoint(w.deps).execute(scope, ep2.id)).canceledDeliveries).to.equal(1);
      await expect(new DeleteWebhookEndpoint(w.deps).execute(scope, ep2.id)).to.be.rejected.and.eventually.have.property('code', 'not_found');
    });

    it('manual retry resets attempts, asks for a prompt send, and is refused on a switched-off endpoint', async () => {
      const w = webhookWorld();
      const ep = await endpoint(w);
      await new FanOutEvent(w.deps).execute(event());
      const id = [...w.deliveries.rows.keys()][0];
      await new AttemptDelivery(w.deps).execute(id, 'x');
      const nudges = w.dueNudges;
      const retried = await new RetryWebhookDelivery(w.deps).execute(scope, ep.id, id);
      expect(retried.state).to.include({ status: 'pending', attempts: 0 });
      expect(w.dueNudges).to.equal(nudges + 1);
      await new UpdateWebhookEndpoint(w.deps).execute(scope, ep.id, { enabled: false });
      await expect(new RetryWebhookDelivery(w.deps).execute(scope, ep.id, id)).to.be.rejected.and.eventually.have.property('code', 'endpoint_disabled');
    });

    it('reveal writes the audit event with who and from where', async () => {
      const w = webhookWorld();
      const ep = await endpoint(w);
      const r = await new RevealWebhookSecret(w.deps).execute(scope, ep.id, {
        credentialType: 'api_key', credentialId: 'key_1', userId: null, ip: '203.0.113.9', userAgent: 'curl', requestId: 'req_9',
      });
      expect(r.endpoint.state.secret).to.equal(ep.state.secret);
      const audit = w.outbox.events.find((e) => e.id === r.eventId)!;
      expect(audit.type).to.equal('webhook_endpoint.secret_revealed');
      expect(audit.data.object).to.deep.include({ revealedBy: { credentialType: 'api_key', credentialId: 'key_1', userId: null } });
      expect(audit.data.object).to.deep.include({ revealedFrom: { ip: '203.0.113.9', userAgent: 'curl' } });
    });
  });
});
