import { expect } from 'chai';
import http from 'node:http';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { eventually } from '../../support/eventually';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { webhooksModule } from '../../../infrastructure/main/webhooks.module';
import { verifyWebhook } from '../../../webhook-verifier/src';
import type { Environment } from '../../../domain/shared/environment';
import { moduleList } from '../../../infrastructure/main/module';

describe('webhooks through the REST edge (PostgreSQL + JetStream)', function () {
  this.timeout(60_000);
  let service: TestService;
  let merchant: Merchant;
  let receiver: WebhookReceiver;

  const emit = (type: string, object: Record<string, unknown> & { object: string; id: string }, environment: Environment = 'sandbox', organizationId = merchant.organizationId) =>
    service.core.transactor.run((tx) => service.core.outbox.append(tx, [{ type, scope: { organizationId, environment }, object }])).then((e) => e[0]);

  before(async () => {
    receiver = await new WebhookReceiver().start();
    service = await startTestServiceWith(moduleList().with(webhooksModule({ pollIntervalMs: 100 })), {
      config: { deployment: 'local', webhookTimeoutMs: 1_500, webhookRetryScheduleSeconds: [1, 1, 1, 1, 1, 1] },
    });
    merchant = await service.merchant();
  });
  after(async () => {
    await service?.stop();
    await receiver?.stop();
  });

  describe('registration', () => {
    it('creates an endpoint and returns the secret only once', async () => {
      const created = await merchant.sandbox.post('/v1/webhooks', { url: receiver.url('/reg'), enabledEvents: ['payment.captured', 'payment.*'], description: 'x' });
      expect(created.status).to.equal(201);
      expect(created.body.secret).to.match(/^whsec_/);
      expect(created.body.enabledEvents).to.deep.equal(['payment.*']);
      expect(created.body.status).to.equal('active');
      const got = await merchant.sandbox.get(`/v1/webhooks/${created.body.id}`);
      expect(got.status).to.equal(200);
      expect(got.body).not.to.have.property('secret');
      expect(got.body.statistics.deliveryPolicy.maxAttempts).to.equal(7);
      const list = await merchant.sandbox.get('/v1/webhooks');
      expect(list.body.data.map((e: { id: string }) => e.id)).to.include(created.body.id);
      expect(JSON.stringify(list.body)).not.to.contain(created.body.secret);
      const stored = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ secret: string }>>(
        `select secret from webhook_endpoints where id = ?`, [created.body.id]);
      expect(stored[0].secret).to.match(/^sealed:/).and.not.contain(created.body.secret.slice(6));
    });
    it('refuses loopback in live and on a production deployment, internal networks, http and credentials', async () => {
      const live = await merchant.live.post('/v1/webhooks', { url: receiver.url('/live'), enabledEvents: ['*'] });
      expect(live.status).to.equal(422);
      expect(live.body.error.code).to.equal('internal_address_blocked');
      for (const url of ['https://10.0.0.1/h', 'https://169.254.169.254/latest', 'https://intranet/h', 'https://x.corp/h', 'http://example.com/h', 'https://u:p@example.com/h']) {
        const r = await merchant.sandbox.post('/v1/webhooks', { url, enabledEvents: ['*'] });
        expect(r.status, url).to.equal(422);
        expect(r.body.error.param).to.equal('body.url');
      }
    });
    it('refuses unknown and test event types with 422 and the param', async () => {
      const unknown = await merchant.sandbox.post('/v1/webhooks', { url: 'https://hooks.example.com/a', enabledEvents: ['payment.captured', 'payment.nope'] });
      expect(unknown.status).to.equal(422);
      expect(unknown.body.error).to.include({ code: 'unknown_event_type', param: 'body.enabledEvents[1]' });
      const test = await merchant.sandbox.post('/v1/webhooks', { url: 'https://hooks.example.com/a', enabledEvents: ['webhook_endpoint.test'] });
      expect(test.status).to.equal(422);
      const extra = await merchant.sandbox.post('/v1/webhooks', { url: 'https://hooks.example.com/a', enabledEvents: ['*'], foo: 1 });
      expect(extra.status).to.equal(422);
      expect(extra.body.error.code).to.equal('validation_failed');
    });
    it('refuses service-controlled extra headers and masks values', async () => {
      const bad = await merchant.sandbox.post('/v1/webhooks', { url: 'https://hooks.example.com/h1', enabledEvents: ['*'], customHeaders: { 'Service-Signature': 'x' } });
      expect(bad.status).to.equal(422);
      expect(bad.body.error.code).to.equal('reserved_custom_header');
      const ok = await merchant.sandbox.post('/v1/webhooks', { url: 'https://hooks.example.com/h1', enabledEvents: ['*'], customHeaders: { 'X-Token': 'abcdefghijkl1234' } });
      expect(ok.status).to.equal(201);
      expect(ok.body.customHeaders['X-Token']).to.match(/^\*+1234$/);
      const patched = await merchant.sandbox.patch(`/v1/webhooks/${ok.body.id}`, { customHeaders: { 'X-Token': null, 'X-Other': 'zzzzzzzzzzzz9876' } });
      expect(patched.status).to.equal(200);
      expect(Object.keys(patched.body.customHeaders)).to.deep.equal(['X-Other']);
    });
    it('answers 409 for a duplicate URL and above 20 endpoints per environment', async () => {
      const other = await service.merchant();
      const first = await other.sandbox.post('/v1/webhooks', { url: 'https://hooks.example.com/dup', enabledEvents: ['*'] });
      expect(first.status).to.equal(201);
      const dup = await other.sandbox.post('/v1/webhooks', { url: 'https://hooks.example.com/dup', enabledEvents: ['*'] });
      expect(dup.status).to.equal(409);
      expect(dup.body.error.code).to.equal('webhook_url_taken');
      // Same URL in the other environment is a different registration.
      expect((await other.live.post('/v1/webhooks', { url: 'https://hooks.example.com/dup', enabledEvents: ['*'] })).status).to.equal(201);
      for (let i = 1; i < 20; i++) {
        expect((await other.sandbox.post('/v1/webhooks', { url: `https://hooks.example.com/n${i}`, enabledEvents: ['*'] })).status).to.equal(201);
      }
      const over = await other.sandbox.post('/v1/webhooks', { url: 'https://hooks.example.com/n21', enabledEvents: ['*'] });
      expect(over.status).to.equal(409);
      expect(over.body.error.code).to.equal('webhook_endpoint_limit_reached');
      // A removed endpoint frees its slot and its URL.
      expect((await other.sandbox.delete(`/v1/webhooks/${first.body.id}`)).status).to.equal(200);
      expect((await other.sandbox.post('/v1/webhooks', { url: 'https://hooks.example.com/dup', enabledEvents: ['*'] })).status).to.equal(201);
    });
    it('compares URLs in normalised form: two spellings of one URL are a 409 duplicate; port 0 and internal 6to4 literals are 422', async () => {
      const m = await service.merchant();
      const first = await m.sandbox.post('/v1/webhooks', { url: 'https://hooks.example.com/a~b/%C3%A9?x=%20', enabledEvents: ['*'] });
      expect(first.status).to.equal(201);
      expect(first.body.url).to.equal('https://hooks.example.com/a~b/%C3%A9?x=%20');
      const spellings = [
        'https://hooks.example.com./a~b/%C3%A9?x=%20', // trailing dot in the host
        'https://HOOKS.Example.com/a~b/%C3%A9?x=%20', // host case
        'https://hooks.example.com:443/a~b/%C3%A9?x=%20', // default port
        'https://hooks.example.com/a%7Eb/%c3%a9?x=%20', // encoded unreserved character, percent-encoding case
      ];
      for (const url of spellings) {
        const dup = await m.sandbox.post('/v1/webhooks', { url, enabledEvents: ['*'] });
        expect(dup.status, url).to.equal(409);
        expect(dup.body.error).to.include({ code: 'webhook_url_taken', param: 'body.url' });
      }
      const bare = await m.sandbox.post('/v1/webhooks', { url: 'https://hooks.example.com/bare', enabledEvents: ['*'] });
      expect(bare.status).to.equal(201);
      const emptyQuery = await m.sandbox.post('/v1/webhooks', { url: 'https://hooks.example.com/bare?', enabledEvents: ['*'] });
      expect(emptyQuery.status, 'an empty query').to.equal(409);
      const patched = await m.sandbox.patch(`/v1/webhooks/${bare.body.id}`, { url: 'https://hooks.example.com./a%7eb/%C3%A9?x=%20' });
      expect(patched.status, 'PATCH compares the same way').to.equal(409);
      const portZero = await m.sandbox.post('/v1/webhooks', { url: 'https://hooks.example.com:0/hook', enabledEvents: ['*'] });
      expect(portZero.status).to.equal(422);
      expect(portZero.body.error).to.include({ code: 'invalid_webhook_url', param: 'body.url' });
      for (const url of ['https://[2002:7f00:1::1]/hook', 'https://[2002:a9fe:a9fe::1]/hook']) {
        const internal = await m.sandbox.post('/v1/webhooks', { url, enabledEvents: ['*'] });
        expect(internal.status, url).to.equal(422);
        expect(internal.body.error).to.include({ code: 'internal_address_blocked', param: 'body.url' });
      }
      expect((await m.sandbox.get('/v1/webhooks')).body.data, 'nothing registered by the refusals').to.have.length(2);
    });
    it('documents every webhook and event route in the OpenAPI document', async () => {
      const doc = await service.client().get('/v1/openapi.json');
      expect(doc.status).to.equal(200);
      const paths = Object.keys(doc.body.paths);
      for (const p of ['/v1/webhooks', '/v1/webhooks/event-types', '/v1/webhooks/summary', '/v1/events']) expect(paths, p).to.include(p);
      expect(paths.filter((p) => p.startsWith('/v1/webhooks/')).length).to.be.at.least(8);
    });
    it('applies the registration rules to PATCH too', async () => {
      const m = await service.merchant();
      const a = await m.sandbox.post('/v1/webhooks', { url: 'https://hooks.example.com/pa', enabledEvents: ['*'] });
      await m.sandbox.post('/v1/webhooks', { url: 'https://hooks.example.com/pb', enabledEvents: ['*'] });
      const dup = await m.sandbox.patch(`/v1/webhooks/${a.body.id}`, { url: 'https://hooks.example.com/pb' });
      expect(dup.status).to.equal(409);
      expect(dup.body.error.code).to.equal('webhook_url_taken');
      const internal = await m.sandbox.patch(`/v1/webhooks/${a.body.id}`, { url: 'https://192.168.1.10/h' });
      expect(internal.status).to.equal(422);
      expect(internal.body.error).to.include({ code: 'internal_address_blocked', param: 'body.url' });
      const events = await m.sandbox.patch(`/v1/webhooks/${a.body.id}`, { enabledEvents: ['payment.captured', 'payment.*', 'recipient.updated'] });
      expect(events.body.enabledEvents).to.deep.equal(['payment.*', 'recipient.updated']);
      const description = await m.sandbox.patch(`/v1/webhooks/${a.body.id}`, { description: null });
      expect(description.body.description).to.equal(null);
      expect((await m.sandbox.patch(`/v1/webhooks/${a.body.id}`, { secret: 'x' })).status).to.equal(422);
      expect((await m.live.patch(`/v1/webhooks/${a.body.id}`, { description: 'x' })).status).to.equal(404);
    });
    it('lists the event-type catalog with wildcards and the test type apart', async () => {
      const r = await merchant.sandbox.get('/v1/webhooks/event-types');
      expect(r.status).to.equal(200);
      const payment = r.body.groups.find((g: { resource: string }) => g.resource === 'payment');
      expect(payment.wildcard).to.equal('payment.*');
      expect(payment.types.map((t: { type: string }) => t.type)).to.include('payment.captured');
      expect(r.body.testEventType.type).to.equal('webhook_endpoint.test');
    });
  });

  describe('delivery', () => {
    let endpointId: string;
    let secret: string;
    before(async () => {
      const r = await merchant.sandbox.post('/v1/webhooks', {
        url: receiver.url('/deliver'), enabledEvents: ['payment.*'], customHeaders: { 'X-Receiver-Token': 'token-value-5678' },
      });
      endpointId = r.body.id;
      secret = r.body.secret;
    });

    it('POSTs the envelope with exactly the spec headers, signed, verifiable by the reference verifier', async () => {
      const event = await emit('payment.captured', { object: 'payment', id: 'pay_1', status: 'captured', amount: 1000 });
      await receiver.waitFor((rs) => rs.some((r) => r.path === '/deliver' && r.headers['service-event-id'] === event.id));
      const got = receiver.forPath('/deliver').find((r) => r.headers['service-event-id'] === event.id)!;
      const verified = verifyWebhook({ rawBody: got.rawBody, signatureHeader: got.headers['service-signature'] as string, secret });
      expect(verified).to.deep.include({ id: event.id, type: 'payment.captured', apiVersion: '2026-01-01', environment: 'sandbox' });
      expect(verified.sequence).to.be.a('number').and.greaterThan(0);
      expect(verified.data.object).to.deep.include({ object: 'payment', id: 'pay_1' });
      expect(got.headers['content-type']).to.equal('application/json');
      expect(got.headers['user-agent']).to.equal('Service-Webhooks/1.0');
      expect(got.headers['service-event-type']).to.equal('payment.captured');
      expect(got.headers['service-delivery-attempt']).to.equal('1');
      expect(got.headers['service-version']).to.equal('2026-01-01');
      expect(got.headers['x-receiver-token']).to.equal('token-value-5678');
      const names = got.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase()).sort();
      expect(names).to.deep.equal(['connection', 'content-length', 'content-type', 'host', 'service-delivery-attempt', 'service-event-id',
        'service-event-type', 'service-signature', 'service-version', 'user-agent', 'x-receiver-token']);
      expect(JSON.parse(got.rawBody.toString())).not.to.have.property('organizationId');

      const list = await eventually(async () => {
        const r = await merchant.sandbox.get(`/v1/webhooks/${endpointId}/deliveries?search=${event.id}`);
        return r.body.data[0]?.status === 'succeeded' ? r : null;
      });
      const detail = await merchant.sandbox.get(`/v1/webhooks/${endpointId}/deliveries/${list.body.data[0].id}`);
      expect(detail.status).to.equal(200);
      expect(detail.body.request.body).to.equal(got.rawBody.toString());
      expect(detail.body.request.headers['X-Receiver-Token']).to.match(/^\*+5678$/);
      expect(detail.body.request.headers).not.to.have.property('Service-Signature');
      expect(detail.body.response).to.deep.equal({ status: 200, body: 'ok', truncated: false });
      expect(detail.body.attemptHistory).to.have.length(1);
    });

    it('does not deliver unsubscribed types, other environments or other organizations', async () => {
      const before = receiver.forPath('/deliver').length;
      await emit('recipient.updated', { object: 'recipient', id: 'rcp_1' });
      await emit('payment.captured', { object: 'payment', id: 'pay_live' }, 'live');
      const other = await service.merchant();
      await emit('payment.captured', { object: 'payment', id: 'pay_other' }, 'sandbox', other.organizationId);
      const marker = await emit('payment.failed', { object: 'payment', id: 'pay_marker' });
      await receiver.waitFor((rs) => rs.some((r) => r.path === '/deliver' && r.headers['service-event-id'] === marker.id));
      const newOnes = receiver.forPath('/deliver').slice(before).map((r) => r.headers['service-event-type']);
      expect(newOnes).to.deep.equal(['payment.failed']);
    });

    it('retries a failing endpoint with a recomputed signature and attempt number, and resets failures on 2xx', async () => {
      const r = await merchant.sandbox.post('/v1/webhooks', { url: receiver.url('/flaky'), enabledEvents: ['payment.refunded'] });
      let calls = 0;
      const previous = receiver.answer;
      receiver.answer = (req) => (req.path === '/flaky' ? (++calls <= 2 ? { status: calls === 1 ? 500 : 302, body: 'nope' } : { status: 204 }) : previous(req));
      try {
        const event = await emit('payment.refunded', { object: 'payment', id: 'pay_r' });
        await receiver.waitFor((rs) => rs.filter((x) => x.path === '/flaky').length >= 3, 15_000);
        const got = receiver.forPath('/flaky');
        expect(got.map((x) => x.headers['service-delivery-attempt'])).to.deep.equal(['1', '2', '3']);
        // Recomputed at each attempt: every signature carries its own send time (two attempts in one second may
        // legitimately share one).
        for (const x of got) expect(Math.abs(Number(/t=(\d+)/.exec(x.headers['service-signature'] as string)![1]) - Math.floor(x.at / 1000))).to.be.at.most(1);
        expect(Number(/t=(\d+)/.exec(got[2].headers['service-signature'] as string)![1])).to.be.greaterThan(Number(/t=(\d+)/.exec(got[0].headers['service-signature'] as string)![1]));
        for (const x of got) verifyWebhook({ rawBody: x.rawBody, signatureHeader: x.headers['service-signature'] as string, secret: r.body.secret });
        expect(got[1].at - got[0].at).to.be.at.least(700);
        const delivery = await eventually(async () => {
          const d = await merchant.sandbox.get(`/v1/webhooks/${r.body.id}/deliveries?search=${event.id}`);
          return d.body.data[0]?.status === 'succeeded' ? d.body.data[0] : null;
        });
        expect(delivery.attempts).to.equal(3);
        const ep = await merchant.sandbox.get(`/v1/webhooks/${r.body.id}`);
        expect(ep.body.status).to.equal('active');
        expect(ep.body.consecutiveFailures).to.equal(0);
        expect(ep.body.statistics.attempts).to.equal(3);
        expect(ep.body.statistics.succeeded).to.equal(1);
      } finally {
        receiver.answer = previous;
      }
    });

    it('exhausts after 7 attempts, stores a truncated response, and marks the endpoint failing', async () => {
      const r = await merchant.sandbox.post('/v1/webhooks', { url: receiver.url('/down'), enabledEvents: ['payment.voided'] });
      const previous = receiver.answer;
      receiver.answer = (req) => (req.path === '/down' ? { status: 503, body: 'x'.repeat(10_000) } : previous(req));
      try {
        const event = await emit('payment.voided', { object: 'payment', id: 'pay_v' });
        const delivery = await eventually(async () => {
          const d = await merchant.sandbox.get(`/v1/webhooks/${r.body.id}/deliveries?status=exhausted`);
          return d.body.data[0] ?? null;
        }, 20_000);
        expect(delivery.eventId).to.equal(event.id);
        expect(delivery.attempts).to.equal(7);
        const detail = await merchant.sandbox.get(`/v1/webhooks/${r.body.id}/deliveries/${delivery.id}`);
        expect(detail.body.response.truncated).to.equal(true);
        expect(detail.body.response.body).to.have.length(8192);
        expect(detail.body.attemptHistory.map((a: { responseStatus: number }) => a.responseStatus)).to.deep.equal(new Array(7).fill(503));
        const ep = await merchant.sandbox.get(`/v1/webhooks/${r.body.id}`);
        expect(ep.body.status).to.equal('failing');
        expect(ep.body.consecutiveFailures).to.equal(7);

        // Manual retry resets attempts and sends again, even after exhaustion.
        receiver.answer = previous;
        const retried = await merchant.sandbox.post(`/v1/webhooks/${r.body.id}/deliveries/${delivery.id}/retry`);
        expect(retried.status).to.equal(201);
        expect(retried.body.status).to.equal('pending');
        expect(retried.body.attempts).to.equal(0);
        await eventually(async () => (await merchant.sandbox.get(`/v1/webhooks/${r.body.id}/deliveries/${delivery.id}`)).body.status === 'succeeded');
      } finally {
        receiver.answer = previous;
      }
    });

    it('sends a test event now and answers with the receiver status and body', async () => {
      const previous = receiver.answer;
      receiver.answer = (req) => (req.path === '/deliver' && req.headers['service-event-type'] === 'webhook_endpoint.test' ? { status: 202, body: 'hello from receiver: it\'s "ok" \\ ? $1 é' } : previous(req));
      try {
        const r = await merchant.sandbox.post(`/v1/webhooks/${endpointId}/test`);
        expect(r.status).to.equal(201);
        expect(r.body.eventType).to.equal('webhook_endpoint.test');
        expect(r.body.status).to.equal('succeeded');
        expect(r.body.response).to.deep.equal({ status: 202, body: 'hello from receiver: it\'s "ok" \\ ? $1 é', truncated: false });
        const stored = await merchant.sandbox.get(`/v1/webhooks/${endpointId}/deliveries/${r.body.id}`);
        expect(stored.body.response.body).to.equal('hello from receiver: it\'s "ok" \\ ? $1 é');
        const got = receiver.requests.find((x) => x.headers['service-event-type'] === 'webhook_endpoint.test')!;
        expect(verifyWebhook({ rawBody: got.rawBody, signatureHeader: got.headers['service-signature'] as string, secret }).type).to.equal('webhook_endpoint.test');
      } finally {
        receiver.answer = previous;
      }
    });

    it('a test to a server that does not answer says why in error (connection refused)', async () => {
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as { port: number }).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const created = await merchant.sandbox.post('/v1/webhooks', { url: `http://127.0.0.1:${port}/gone`, enabledEvents: ['payment.captured'] });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const r = await merchant.sandbox.post(`/v1/webhooks/${created.body.id}/test`);
      expect(r.status).to.equal(201);
      expect(r.body).to.include({ status: 'failed', response: null });
      expect(r.body.error).to.be.a('string').and.match(/ECONNREFUSED|refused/i);
      await merchant.sandbox.delete(`/v1/webhooks/${created.body.id}`);
    });

    it('signs with both secrets during the rotation grace window and only the new one with none', async () => {
      const rotated = await merchant.sandbox.post(`/v1/webhooks/${endpointId}/rotate-secret`);
      expect(rotated.status).to.equal(201);
      const next = rotated.body.secret as string;
      expect(next).to.match(/^whsec_/).and.not.equal(secret);
      expect(rotated.body.secretRotation.previousSecretExpiresAt).to.be.a('string');
      const e1 = await emit('payment.captured', { object: 'payment', id: 'pay_rot' });
      await receiver.waitFor((rs) => rs.some((x) => x.path === '/deliver' && x.headers['service-event-id'] === e1.id));
      const got = receiver.forPath('/deliver').find((x) => x.headers['service-event-id'] === e1.id)!;
      const header = got.headers['service-signature'] as string;
      expect(header.match(/v1=/g)).to.have.length(2);
      verifyWebhook({ rawBody: got.rawBody, signatureHeader: header, secret });
      verifyWebhook({ rawBody: got.rawBody, signatureHeader: header, secret: next });

      const hard = await merchant.sandbox.post(`/v1/webhooks/${endpointId}/rotate-secret`, { gracePeriod: 'none' });
      expect(hard.body.secretRotation.previousSecretExpiresAt).to.equal(null);
      const e2 = await emit('payment.captured', { object: 'payment', id: 'pay_rot2' });
      await receiver.waitFor((rs) => rs.some((x) => x.path === '/deliver' && x.headers['service-event-id'] === e2.id));
      const got2 = receiver.forPath('/deliver').find((x) => x.headers['service-event-id'] === e2.id)!;
      expect((got2.headers['service-signature'] as string).match(/v1=/g)).to.have.length(1);
      expect(() => verifyWebhook({ rawBody: got2.rawBody, signatureHeader: got2.headers['service-signature'] as string, secret: next })).to.throw();
      secret = hard.body.secret;
      verifyWebhook({ rawBody: got2.rawBody, signatureHeader: got2.headers['service-signature'] as string, secret });

      const revealed = await merchant.sandbox.post(`/v1/webhooks/${endpointId}/reveal-secret`);
      expect(revealed.status).to.equal(201);
      expect(revealed.body.secret).to.equal(secret);
      // The event log shows an event once the relay has numbered it (milliseconds after commit).
      const audit = await eventually(async () => {
        const r = await merchant.sandbox.get(`/v1/events/${revealed.body.auditEventId}`);
        return r.status === 200 ? r : null;
      });
      expect(audit.body.type).to.equal('webhook_endpoint.secret_revealed');
      expect(audit.body.data.object.revealedBy.credentialType).to.equal('api_key');
      expect(audit.body.data.object.revealedFrom.ip).to.be.a('string');
    });

    it('fans out to the endpoints as they are now: created, re-subscribed, moved, disabled or deleted through another process', async () => {
      // The edge of a second process of the installation changes the endpoints; this service's fan-out, which
      // remembers each tenant's endpoints, must plan every later event by the endpoints as changed.
      const edge = await startTestServiceWith(moduleList().with(webhooksModule()), { joining: service, workers: false, config: { deployment: 'local' } });
      try {
        const m = await service.merchant('Endpoints elsewhere');
        const through = edge.client(m.sandboxKey);
        const emitFor = (type: string, id: string) => emit(type, { object: 'payment', id }, 'sandbox', m.organizationId);
        const received = (path: string, eventId: string) => receiver.forPath(path).some((r) => r.headers['service-event-id'] === eventId);
        const arrives = (path: string, eventId: string) => receiver.waitFor(() => received(path, eventId));

        const a = (await through.post('/v1/webhooks', { url: receiver.url('/elsewhere-a'), enabledEvents: ['payment.*'] })).body.id as string;
        const first = await emitFor('payment.captured', 'pay_e1');
        await arrives('/elsewhere-a', first.id); // the fan-out now remembers [a] for this tenant

        await through.post('/v1/webhooks', { url: receiver.url('/elsewhere-b'), enabledEvents: ['payment.*'] });
        const second = await emitFor('payment.captured', 'pay_e2');
        await arrives('/elsewhere-b', second.id);
        await arrives('/elsewhere-a', second.id);

        expect((await through.patch(`/v1/webhooks/${a}`, { enabledEvents: ['payment.failed'] })).status).to.equal(200);
        const captured = await emitFor('payment.captured', 'pay_e3');
        const failed = await emitFor('payment.failed', 'pay_e4');
        await arrives('/elsewhere-a', failed.id);
        await arrives('/elsewhere-b', failed.id);
        expect(received('/elsewhere-a', captured.id)).to.equal(false);

        expect((await through.patch(`/v1/webhooks/${a}`, { url: receiver.url('/elsewhere-a2') })).status).to.equal(200);
        const moved = await emitFor('payment.failed', 'pay_e5');
        await arrives('/elsewhere-a2', moved.id);
        await arrives('/elsewhere-b', moved.id);
        expect(received('/elsewhere-a', moved.id)).to.equal(false);

        expect((await through.patch(`/v1/webhooks/${a}`, { enabled: false })).status).to.equal(200);
        const whileDisabled = await emitFor('payment.failed', 'pay_e6');
        await arrives('/elsewhere-b', whileDisabled.id);
        expect((await through.delete(`/v1/webhooks/${a}`)).status).to.be.oneOf([200, 204]);
        const listed = await through.get('/v1/webhooks');
        const b = listed.body.data.find((e: { url: string }) => e.url.endsWith('/elsewhere-b')).id as string;
        expect((await through.delete(`/v1/webhooks/${b}`)).status).to.be.oneOf([200, 204]);
        const c = await through.post('/v1/webhooks', { url: receiver.url('/elsewhere-c'), enabledEvents: ['payment.*'] });
        expect(c.status).to.equal(201);
        const afterDeletes = await emitFor('payment.failed', 'pay_e7');
        await arrives('/elsewhere-c', afterDeletes.id);
        expect(received('/elsewhere-a2', whileDisabled.id) || received('/elsewhere-a2', afterDeletes.id) || received('/elsewhere-b', afterDeletes.id)).to.equal(false);
      } finally {
        await edge.stop();
      }
    });

    it('disabling cancels queued deliveries and returns canceledDeliveries; test and retry then answer 409', async () => {
      const r = await merchant.sandbox.post('/v1/webhooks', { url: receiver.url('/slow-fail'), enabledEvents: ['payment.authorized'] });
      const previous = receiver.answer;
      receiver.answer = (req) => (req.path === '/slow-fail' ? { status: 500 } : previous(req));
      try {
        await emit('payment.authorized', { object: 'payment', id: 'pay_a1' });
        await emit('payment.authorized', { object: 'payment', id: 'pay_a2' });
        await receiver.waitFor((rs) => rs.filter((x) => x.path === '/slow-fail').length >= 2);
        // A first attempt can reach the receiver while its delivery row is still being inserted (fan-out sends and
        // inserts at once); both must be stored, i.e. queued, before the switch-off that cancels them.
        await eventually(async () => (await merchant.sandbox.get(`/v1/webhooks/${r.body.id}/deliveries`)).body.data.length === 2);
        const patched = await merchant.sandbox.patch(`/v1/webhooks/${r.body.id}`, { enabled: false });
        expect(patched.status).to.equal(200);
        expect(patched.body.status).to.equal('disabled');
        expect(patched.body.enabled).to.equal(false);
        expect(patched.body.canceledDeliveries).to.equal(2);
        const list = await merchant.sandbox.get(`/v1/webhooks/${r.body.id}/deliveries?status=disabled`);
        expect(list.body.data).to.have.length(2);
        expect((await merchant.sandbox.post(`/v1/webhooks/${r.body.id}/test`)).status).to.equal(409);
        expect((await merchant.sandbox.post(`/v1/webhooks/${r.body.id}/deliveries/${list.body.data[0].id}/retry`)).status).to.equal(409);
        const enabled = await merchant.sandbox.patch(`/v1/webhooks/${r.body.id}`, { enabled: true });
        expect(enabled.body).to.include({ status: 'active', consecutiveFailures: 0 });
      } finally {
        receiver.answer = previous;
      }
    });
  });

  describe('event log and scopes', () => {
    it('lists newest first by sequence with filters and paging, and shows deliveries with webhooks:read', async () => {
      const m = await service.merchant();
      const ep = await m.sandbox.post('/v1/webhooks', { url: receiver.url('/log'), enabledEvents: ['payment.*'] });
      const scope = { organizationId: m.organizationId };
      const e1 = await emit('payment.captured', { object: 'payment', id: 'pay_l1' }, 'sandbox', scope.organizationId);
      const e2 = await emit('recipient.updated', { object: 'recipient', id: 'rcp_l1' }, 'sandbox', scope.organizationId);
      const e3 = await emit('payment.failed', { object: 'payment', id: 'pay_l2' }, 'sandbox', scope.organizationId);
      await receiver.waitFor((rs) => rs.filter((x) => x.path === '/log').length >= 2);

      const all = await m.sandbox.get('/v1/events');
      expect(all.status).to.equal(200);
      const ids = all.body.data.map((e: { id: string }) => e.id);
      expect(ids.slice(0, 3)).to.deep.equal([e3.id, e2.id, e1.id]);
      expect(all.body.data[0]).to.have.property('deliverySummary');
      expect((await m.sandbox.get('/v1/events?type=payment.*')).body.data.map((e: { id: string }) => e.id)).to.deep.equal([e3.id, e1.id]);
      expect((await m.sandbox.get('/v1/events?type=recipient.updated')).body.data.map((e: { id: string }) => e.id)).to.deep.equal([e2.id]);
      expect((await m.sandbox.get('/v1/events?objectType=recipient')).body.data).to.have.length(1);
      expect((await m.sandbox.get('/v1/events?objectId=pay_l2')).body.data[0].id).to.equal(e3.id);
      expect((await m.sandbox.get(`/v1/events?search=${e1.id}`)).body.data[0].id).to.equal(e1.id);
      expect((await m.sandbox.get('/v1/events?search=pay_l1')).body.data[0].id).to.equal(e1.id);
      const page1 = await m.sandbox.get('/v1/events?limit=1');
      expect(page1.body.hasMore).to.equal(true);
      const page2 = await m.sandbox.get(`/v1/events?limit=1&startingAfter=${page1.body.data[0].id}`);
      expect(page2.body.data[0].sequence).to.be.lessThan(page1.body.data[0].sequence);
      expect((await m.sandbox.get('/v1/events?createdFrom=2999-01-01T00:00:00Z')).body.data).to.have.length(0);
      expect((await m.live.get('/v1/events')).body.data).to.have.length(0);

      const one = await eventually(async () => {
        const r = await m.sandbox.get(`/v1/events/${e1.id}`);
        return r.body.deliveries?.[0]?.status === 'succeeded' ? r : null;
      });
      expect(one.body.deliveries[0]).to.include({ endpointId: ep.body.id, endpointDeleted: false });
      await m.sandbox.delete(`/v1/webhooks/${ep.body.id}`);
      const afterDelete = await m.sandbox.get(`/v1/events/${e1.id}`);
      expect(afterDelete.body.deliveries[0].endpointDeleted).to.equal(true);
      expect((await m.sandbox.get(`/v1/webhooks/${ep.body.id}/deliveries`)).body.data.length).to.be.greaterThan(0);
      expect((await m.sandbox.get(`/v1/webhooks/${ep.body.id}`)).status).to.equal(404);

      const eventsOnly = await service.core.apiKeys.create.execute({ organizationId: m.organizationId, environment: 'sandbox', name: 'events', scopes: ['events:read'] });
      const limited = service.client(eventsOnly.secret);
      const noDeliveries = await limited.get(`/v1/events/${e1.id}`);
      expect(noDeliveries.status).to.equal(200);
      expect(noDeliveries.body).not.to.have.property('deliveries');
      expect((await limited.get('/v1/events')).body.data[0]).not.to.have.property('deliverySummary');
      expect((await limited.get('/v1/webhooks')).status).to.equal(403);
      const readOnly = await service.core.apiKeys.create.execute({ organizationId: m.organizationId, environment: 'sandbox', name: 'ro', scopes: ['webhooks:read'] });
      const ro = service.client(readOnly.secret);
      expect((await ro.get('/v1/webhooks')).status).to.equal(200);
      expect((await ro.post('/v1/webhooks', { url: 'https://hooks.example.com/ro', enabledEvents: ['*'] })).status).to.equal(403);
      expect((await ro.get('/v1/events')).status).to.equal(403);
    });

    it('filters an endpoint\'s deliveries by status, event type, dates and search, with cursor paging', async () => {
      const m = await service.merchant();
      const ep = await m.sandbox.post('/v1/webhooks', { url: receiver.url('/filters'), enabledEvents: ['*'] });
      const org = m.organizationId;
      const e1 = await emit('payment.captured', { object: 'payment', id: 'pay_f1' }, 'sandbox', org);
      await emit('recipient.updated', { object: 'recipient', id: 'rcp_f1' }, 'sandbox', org);
      await emit('payment.failed', { object: 'payment', id: 'pay_f2' }, 'sandbox', org);
      const base = `/v1/webhooks/${ep.body.id}/deliveries`;
      await eventually(async () => (await m.sandbox.get(`${base}?status=succeeded`)).body.data.length === 3);
      const types = async (q: string) => (await m.sandbox.get(`${base}?${q}`)).body.data.map((d: { eventType: string }) => d.eventType);
      // Deliveries list newest first by delivery id (creation order of the fan-out, not event order).
      expect(await types('eventType=payment.*')).to.have.members(['payment.failed', 'payment.captured']);
      expect(await types('eventType=recipient.updated')).to.deep.equal(['recipient.updated']);
      expect(await types('status=pending,failed')).to.deep.equal([]);
      expect(await types('createdFrom=2999-01-01T00:00:00Z')).to.deep.equal([]);
      expect(await types('createdTo=2000-01-01T00:00:00Z')).to.deep.equal([]);
      expect(await types(`search=${e1.id}`)).to.deep.equal(['payment.captured']);
      const page1 = await m.sandbox.get(`${base}?limit=2`);
      expect(page1.body.hasMore).to.equal(true);
      const page2 = await m.sandbox.get(`${base}?limit=2&startingAfter=${page1.body.data[1].id}`);
      expect(page2.body).to.deep.include({ hasMore: false });
      expect(page2.body.data).to.have.length(1);
      expect([...page1.body.data, ...page2.body.data].map((d: { eventType: string }) => d.eventType))
        .to.have.members(['payment.captured', 'recipient.updated', 'payment.failed']);
      expect(page2.body.data[0].id < page1.body.data[1].id).to.equal(true);
      expect(await types(`search=${page2.body.data[0].id}`)).to.deep.equal([page2.body.data[0].eventType]);
      const bad = await m.sandbox.get(`${base}?status=bogus`);
      expect(bad.status).to.equal(422);
      expect(bad.body.error.param).to.equal('query.status');
      expect((await m.sandbox.get(`${base}?limit=101`)).status).to.equal(422);
      expect((await m.sandbox.get(`/v1/webhooks/whe_nope/deliveries`)).status).to.equal(404);
      expect((await merchant.sandbox.get(base)).status).to.equal(404);
    });

    it('summarizes endpoints and deliveries over 24 hours', async () => {
      const r = await merchant.sandbox.get('/v1/webhooks/summary');
      expect(r.status).to.equal(200);
      expect(r.body.endpoints.active + r.body.endpoints.failing + r.body.endpoints.switchedOff).to.equal(r.body.endpoints.total);
      expect(r.body.last24Hours.deliveries).to.be.greaterThan(0);
      expect(r.body.previous24Hours.deliveries).to.equal(0);
    });
  });
});
