import { expect } from 'chai';
import { eventually } from '../../support/eventually';
import { notesModule, type NotesControls } from '../../support/notes-module';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { moduleList } from '../../../infrastructure/main/module';

describe('REST edge foundation (real PostgreSQL, NATS JetStream)', () => {
  let service: TestService;
  let merchant: Merchant;
  const controls: NotesControls = { ready: true, gate: null, handled: 0 };

  before(async () => {
    service = await startTestServiceWith(moduleList().with(notesModule(controls)));
    merchant = await service.merchant();
  });
  after(() => service.stop());

  describe('authentication and tenancy', () => {
    it('answers 401 with the error shape when no key is sent', async () => {
      const response = await service.client().get('/v1/test-notes');
      expect(response.status).to.equal(401);
      expect(response.body.error.code).to.equal('unauthorized');
      expect(response.body.error.requestId).to.match(/^req_/);
      expect(response.headers.get('request-id')).to.equal(response.body.error.requestId);
    });

    it('answers 401 for an unknown or malformed key', async () => {
      expect((await service.client('sk_sandbox_nope').get('/v1/test-notes')).status).to.equal(401);
      expect((await service.client('garbage').get('/v1/test-notes')).status).to.equal(401);
    });

    it('keeps environments apart: a sandbox key cannot read a live record (404)', async () => {
      const created = await merchant.live.post('/v1/test-notes', { text: 'live only', amount: 10 });
      expect(created.status).to.equal(201);
      expect((await merchant.live.get(`/v1/test-notes/${created.body.id}`)).status).to.equal(200);
      const fromSandbox = await merchant.sandbox.get(`/v1/test-notes/${created.body.id}`);
      expect(fromSandbox.status).to.equal(404);
      expect(fromSandbox.body.error.code).to.equal('not_found');
    });

    it('keeps organizations apart', async () => {
      const other = await service.merchant('Other');
      const created = await merchant.sandbox.post('/v1/test-notes', { text: 'mine', amount: 10 });
      expect((await other.sandbox.get(`/v1/test-notes/${created.body.id}`)).status).to.equal(404);
    });

    it('refuses a key without the route scope (403)', async () => {
      const limited = await service.core.apiKeys.create.execute({ organizationId: merchant.organizationId, environment: 'sandbox', name: 'read only', scopes: ['payments:read'] });
      const response = await service.client(limited.secret).post('/v1/test-notes', { text: 'x', amount: 1 });
      expect(response.status).to.equal(403);
      expect(response.body.error.code).to.equal('forbidden');
      expect((await service.client(limited.secret).get('/v1/test-notes')).status).to.equal(200);
    });

    it('stops accepting a revoked key at once', async () => {
      const created = await service.core.apiKeys.create.execute({ organizationId: merchant.organizationId, environment: 'sandbox', name: 'temp' });
      expect((await service.client(created.secret).get('/v1/test-notes')).status).to.equal(200);
      await service.core.transactor.run((tx) => service.core.apiKeys.repository.revoke(tx, merchant.organizationId, created.key.id, new Date()));
      expect((await service.client(created.secret).get('/v1/test-notes')).status).to.equal(401);
    });

    it('stops accepting a revoked key in every edge process, within the notification delay (not a memory timeout)', async () => {
      const second = await startTestServiceWith(moduleList().with(notesModule(controls)), { joining: service, workers: false });
      try {
        const created = await service.core.apiKeys.create.execute({ organizationId: merchant.organizationId, environment: 'sandbox', name: 'two edges' });
        // Both processes have now authenticated the key (and remember it).
        expect((await service.client(created.secret).get('/v1/test-notes')).status).to.equal(200);
        expect((await second.client(created.secret).get('/v1/test-notes')).status).to.equal(200);
        expect((await second.client(created.secret).get('/v1/test-notes')).status).to.equal(200);

        await service.core.transactor.run((tx) => service.core.apiKeys.repository.revoke(tx, merchant.organizationId, created.key.id, new Date()));
        expect((await service.client(created.secret).get('/v1/test-notes')).status).to.equal(401);
        const started = Date.now();
        await eventually(async () => (await second.client(created.secret).get('/v1/test-notes')).status === 401, 2_000, 5);
        expect(Date.now() - started).to.be.below(2_000);
      } finally {
        await second.stop();
      }
    });
  });

  describe('bad input gets a clean 4xx and changes nothing', () => {
    it('answers 400 invalid_json for malformed JSON', async () => {
      const response = await merchant.sandbox.post('/v1/test-notes', '{"text": "a", ');
      expect(response.status).to.equal(400);
      expect(response.body.error.code).to.equal('invalid_json');
    });

    it('answers 413 for a body over 1 MB without reading it all', async () => {
      const response = await merchant.sandbox.post('/v1/test-notes', JSON.stringify({ text: 'x'.repeat(1_100_000), amount: 1 }));
      expect(response.status).to.equal(413);
      expect(response.body.error.code).to.equal('payload_too_large');
    });

    it('refuses deeply nested JSON with 400', async () => {
      const deep = '['.repeat(5_000) + ']'.repeat(5_000);
      const response = await merchant.sandbox.post('/v1/test-notes', `{"text":"a","amount":1,"x":${deep}}`);
      expect(response.status).to.equal(400);
      expect(response.body.error.code).to.equal('invalid_json');
    });

    it('answers 422 validation_failed naming the parameter for a wrong type', async () => {
      const response = await merchant.sandbox.post('/v1/test-notes', { text: 'a', amount: '12' });
      expect(response.status).to.equal(422);
      expect(response.body.error.code).to.equal('validation_failed');
      expect(response.body.error.param).to.equal('body.amount');
    });

    it('refuses unknown fields, also in nested objects', async () => {
      const top = await merchant.sandbox.post('/v1/test-notes', { text: 'a', amount: 1, surprise: true });
      expect(top.status).to.equal(422);
      expect(top.body.error.param).to.equal('body.surprise');
      const nested = await merchant.sandbox.post('/v1/test-notes', { text: 'a', amount: 1, tags: [{ name: 'n', extra: 1 }] });
      expect(nested.status).to.equal(422);
      expect(nested.body.error.param).to.equal('body.tags[0].extra');
    });

    it('names a missing required field', async () => {
      const response = await merchant.sandbox.post('/v1/test-notes', { text: 'a' });
      expect(response.status).to.equal(422);
      expect(response.body.error.param).to.equal('body.amount');
      expect(response.body.error.details).to.deep.include({ param: 'body.amount', message: 'is required' });
    });

    it('wrote nothing for any refused request', async () => {
      const fresh = await service.merchant('Refusals');
      await fresh.sandbox.post('/v1/test-notes', '{bad');
      await fresh.sandbox.post('/v1/test-notes', { text: 'a', amount: -1 });
      const list = await fresh.sandbox.get('/v1/test-notes');
      expect(list.body.data).to.have.length(0);
    });

    it('hides unexpected failures behind a 500 with only the request id', async () => {
      const response = await merchant.sandbox.post('/v1/test-notes', { text: 'explode', amount: 1 });
      expect(response.status).to.equal(500);
      expect(response.body.error.code).to.equal('internal_error');
      expect(response.text).not.to.contain('secret_table');
      expect(response.text).not.to.contain('at ');
    });

    it('answers JSON 404 for an unknown route and 405 for a wrong method', async () => {
      const unknown = await merchant.sandbox.get('/v1/nothing-here');
      expect(unknown.status).to.equal(404);
      expect(unknown.body.error.code).to.equal('not_found');
      const wrongMethod = await merchant.sandbox.delete('/v1/test-notes');
      expect(wrongMethod.status).to.equal(405);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first answer for the same key and body, with Idempotent-Replayed', async () => {
      const headers = { 'Idempotency-Key': `k-${Date.now()}` };
      const first = await merchant.sandbox.post('/v1/test-notes', { text: 'once', amount: 5 }, headers);
      const second = await merchant.sandbox.post('/v1/test-notes', { amount: 5, text: 'once' }, headers);
      expect(first.status).to.equal(201);
      expect(second.status).to.equal(201);
      expect(second.body).to.deep.equal(first.body);
      expect(second.headers.get('idempotent-replayed')).to.equal('true');
      expect(first.headers.get('idempotent-replayed')).to.equal(null);
    });

    it('answers 409 idempotency_conflict for the same key with another body', async () => {
      const headers = { 'Idempotency-Key': `k2-${Date.now()}` };
      await merchant.sandbox.post('/v1/test-notes', { text: 'one', amount: 5 }, headers);
      const conflict = await merchant.sandbox.post('/v1/test-notes', { text: 'two', amount: 5 }, headers);
      expect(conflict.status).to.equal(409);
      expect(conflict.body.error.code).to.equal('idempotency_conflict');
    });

    it('answers 409 while the first request is still in flight', async () => {
      let release!: () => void;
      controls.gate = new Promise((resolve) => (release = resolve));
      const headers = { 'Idempotency-Key': `k3-${Date.now()}` };
      const first = merchant.sandbox.post('/v1/test-notes', { text: 'slow', amount: 5 }, headers);
      const before = controls.handled;
      while (controls.handled === before) await new Promise((resolve) => setTimeout(resolve, 5));
      const second = await merchant.sandbox.post('/v1/test-notes', { text: 'slow', amount: 5 }, headers);
      controls.gate = null;
      release();
      expect(second.status).to.equal(409);
      expect(second.body.error.code).to.equal('idempotency_conflict');
      expect((await first).status).to.equal(201);
    });

    it('scopes keys by environment: the same key in live is a new request', async () => {
      const headers = { 'Idempotency-Key': `k4-${Date.now()}` };
      const sandbox = await merchant.sandbox.post('/v1/test-notes', { text: 'env', amount: 5 }, headers);
      const live = await merchant.live.post('/v1/test-notes', { text: 'env', amount: 5 }, headers);
      expect(live.headers.get('idempotent-replayed')).to.equal(null);
      expect(live.body.id).not.to.equal(sandbox.body.id);
    });

    it('replays a refusal by a domain rule, and frees the key after an unexpected failure', async () => {
      const refusedKey = { 'Idempotency-Key': `k5-${Date.now()}` };
      const refused = await merchant.sandbox.post('/v1/test-notes', { text: 'refuse', amount: 5 }, refusedKey);
      expect(refused.status).to.equal(422);
      const replay = await merchant.sandbox.post('/v1/test-notes', { text: 'refuse', amount: 5 }, refusedKey);
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(replay.body.error.code).to.equal('amount_exceeds_available');

      const failedKey = { 'Idempotency-Key': `k6-${Date.now()}` };
      const handled = controls.handled;
      expect((await merchant.sandbox.post('/v1/test-notes', { text: 'explode', amount: 5 }, failedKey)).status).to.equal(500);
      expect((await merchant.sandbox.post('/v1/test-notes', { text: 'explode', amount: 5 }, failedKey)).status).to.equal(500);
      expect(controls.handled).to.equal(handled + 2);
    });
  });

  describe('rate limits', () => {
    it('answers 429 rate_limited with Retry-After once the limit is spent', async () => {
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 4; i += 1) {
        last = await merchant.sandbox.post('/v1/test-notes/n1/ping', {});
        statuses.push(last.status);
      }
      expect(statuses).to.deep.equal([200, 200, 200, 429]);
      expect(last!.body.error.code).to.equal('rate_limited');
      expect(Number(last!.headers.get('retry-after'))).to.be.within(1, 60);
      // Another subject of the same limit is counted apart.
      expect((await merchant.sandbox.post('/v1/test-notes/n2/ping', {})).status).to.equal(200);
    });
  });

  describe('cursor pagination', () => {
    it('pages newest first with hasMore and startingAfter', async () => {
      const fresh = await service.merchant('Pager');
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push((await fresh.sandbox.post('/v1/test-notes', { text: `n${i}`, amount: i + 1 })).body.id);
      const first = await fresh.sandbox.get('/v1/test-notes?limit=2');
      expect(first.body.object).to.equal('list');
      expect(first.body.data.map((note: { id: string }) => note.id)).to.deep.equal([ids[4], ids[3]]);
      expect(first.body.hasMore).to.equal(true);
      const last = await fresh.sandbox.get(`/v1/test-notes?limit=2&startingAfter=${ids[1]}`);
      expect(last.body.data.map((note: { id: string }) => note.id)).to.deep.equal([ids[0]]);
      expect(last.body.hasMore).to.equal(false);
      expect((await fresh.sandbox.get('/v1/test-notes?limit=101')).status).to.equal(422);
      expect((await fresh.sandbox.get('/v1/test-notes?limit=0')).body.error.param).to.equal('query.limit');
    });

    it('returns int8 money as numbers that add up', async () => {
      const fresh = await service.merchant('Money');
      await fresh.sandbox.post('/v1/test-notes', { text: 'big', amount: 9999999999 });
      await fresh.sandbox.post('/v1/test-notes', { text: 'one', amount: 1 });
      const list = await fresh.sandbox.get('/v1/test-notes');
      const amounts = list.body.data.map((note: { amount: number }) => note.amount);
      expect(amounts.every((amount: unknown) => typeof amount === 'number')).to.equal(true);
      expect(amounts.reduce((sum: number, amount: number) => sum + amount, 0)).to.equal(10000000000);
    });
  });

  describe('health, OpenAPI and docs', () => {
    it('answers liveness, installation info and readiness', async () => {
      const client = service.client();
      expect((await client.get('/health/live')).status).to.equal(200);
      const info = await client.get('/health');
      expect(info.body.apiVersion).to.equal('2026-01-01');
      expect(info.body.version).to.be.a('string');
      const ready = await client.get('/health/ready');
      expect(ready.status).to.equal(200);
      expect(ready.body.checks).to.include({ database: 'up', events: 'up', 'notes-adapter': 'up' });
    });

    it('answers 503 naming the dependency that is down', async () => {
      controls.ready = false;
      try {
        const ready = await service.client().get('/health/ready');
        expect(ready.status).to.equal(503);
        expect(ready.body.down).to.deep.equal(['notes-adapter']);
      } finally {
        controls.ready = true;
      }
    });

    it('serves an OpenAPI 3.1 document generated from the validation schemas', async () => {
      const document = await service.client().get('/v1/openapi.json');
      expect(document.body.openapi).to.equal('3.1.0');
      const create = document.body.paths['/v1/test-notes'].post;
      expect(create.requestBody.content['application/json'].schema.required).to.deep.equal(['text', 'amount']);
      expect(create.requestBody.content['application/json'].schema.additionalProperties).to.equal(false);
      expect(create.parameters.map((p: { name: string }) => p.name)).to.include('Idempotency-Key');
      expect(document.body.paths['/v1/test-notes/{id}'].get.parameters[0]).to.include({ name: 'id', in: 'path' });
    });

    it('serves a readable reference page with local assets', async () => {
      const page = await service.client().get('/docs');
      expect(page.status).to.equal(200);
      expect(page.headers.get('content-type')).to.contain('text/html');
      expect(page.text).to.contain('/docs/assets/swagger-ui-bundle.js');
      expect(page.text).not.to.match(/https?:\/\//);
      const bundle = await service.client().get('/docs/assets/swagger-ui-bundle.js');
      expect(bundle.status).to.equal(200);
      expect(bundle.text.length).to.be.greaterThan(100_000);
    });
  });
});
