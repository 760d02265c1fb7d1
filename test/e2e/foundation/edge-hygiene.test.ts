import { expect } from 'chai';
import { HTML_CONTENT_SECURITY_POLICY } from '../../../edge/http/security-headers';
import { notesModule, type NotesControls } from '../../support/notes-module';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { moduleList } from '../../../infrastructure/main/module';

/**
 * The edge's input hygiene and response headers, for every route alike (issue 22 items 1 and 6): text the database
 * cannot store, bodies that are not JSON, and the headers that keep answers out of caches and pages out of frames.
 */
describe('REST edge input hygiene and response headers (real PostgreSQL)', () => {
  let service: TestService;
  let merchant: Merchant;
  const controls: NotesControls = { ready: true, gate: null, handled: 0 };

  before(async () => {
    service = await startTestServiceWith(moduleList().with(notesModule(controls)), { transport: 'in-process' });
    merchant = await service.merchant();
  });
  after(() => service.stop());

  const send = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
    fetch(`${service.url}${path}`, { ...init, headers: { Authorization: `Bearer ${merchant.sandboxKey}`, ...init.headers } });

  const notesOf = async (who: Merchant) => (await who.sandbox.get('/v1/test-notes')).body.data as unknown[];

  describe('text PostgreSQL cannot store (NUL, unpaired surrogates)', () => {
    it('refuses a NUL or a lone surrogate in a body string with 422 naming the field, and writes nothing', async () => {
      const fresh = await service.merchant('Hygiene body');
      const cases: Array<[string, string]> = [
        ['{"text":"a\\u0000b","amount":1}', 'body.text'],
        ['{"text":"\\ud800","amount":1}', 'body.text'],
        ['{"text":"cut \\ud83d","amount":1}', 'body.text'],
        ['{"text":"a","amount":1,"tags":[{"name":"ok"},{"name":"\\udc00"}]}', 'body.tags[1].name'],
      ];
      for (const [raw, param] of cases) {
        const response = await fresh.sandbox.post('/v1/test-notes', raw);
        expect(response.status, raw).to.equal(422);
        expect(response.body.error).to.include({ code: 'validation_failed', param });
        expect(response.body.error.requestId).to.match(/^req_/);
      }
      expect(await notesOf(fresh)).to.have.length(0);
    });

    it('names the object whose field name cannot be stored', async () => {
      const response = await merchant.sandbox.post('/v1/test-notes', '{"text":"a","amount":1,"tags":[{"name":"n","\\u0000":1}]}');
      expect(response.status).to.equal(422);
      expect(response.body.error.param).to.equal('body.tags[0]');
    });

    it('keeps the Idempotency-Key free: a retry is refused the same way, never 409, and the key then serves a good body', async () => {
      const headers = { 'Idempotency-Key': `nul-${Date.now()}` };
      const bad = '{"text":"a\\u0000","amount":7}';
      expect((await merchant.sandbox.post('/v1/test-notes', bad, headers)).status).to.equal(422);
      const retry = await merchant.sandbox.post('/v1/test-notes', bad, headers);
      expect(retry.status).to.equal(422);
      expect(retry.body.error.code).to.equal('validation_failed');
      expect((await merchant.sandbox.post('/v1/test-notes', { text: 'a', amount: 7 }, headers)).status).to.equal(201);
    });

    it('refuses a percent-encoded NUL in a query value or name with 422 naming it', async () => {
      const value = await merchant.sandbox.get('/v1/test-notes?startingAfter=%00');
      expect(value.status).to.equal(422);
      expect(value.body.error).to.include({ code: 'validation_failed', param: 'query.startingAfter' });
      const name = await merchant.sandbox.get('/v1/test-notes?a%00b=1');
      expect(name.status).to.equal(422);
      expect(name.body.error.param).to.equal('query');
    });

    it('refuses a percent-encoded NUL in a path parameter with 400 naming it', async () => {
      const response = await merchant.sandbox.get('/v1/test-notes/note_%00');
      expect(response.status).to.equal(400);
      expect(response.body.error).to.include({ code: 'bad_request', param: 'path.id' });
    });

    it('reads percent-encoded invalid UTF-8 (a surrogate as %ED%A0%80) as ordinary, storable text', async () => {
      expect((await merchant.sandbox.get('/v1/test-notes?startingAfter=%ED%A0%80')).status).to.equal(200);
      expect((await merchant.sandbox.get('/v1/test-notes/%ED%A0%80')).status).to.equal(404);
    });
  });

  describe('request media type', () => {
    it('answers 415 unsupported_media_type in the error shape for a body that is not declared JSON, and writes nothing', async () => {
      const fresh = await service.merchant('Media types');
      const json = JSON.stringify({ text: 'typed', amount: 3 });
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', undefined]) {
        const response = await fetch(`${service.url}/v1/test-notes`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${fresh.sandboxKey}`, ...(type ? { 'Content-Type': type } : {}) },
          body: new TextEncoder().encode(json),
        });
        expect(response.status, String(type)).to.equal(415);
        const body = (await response.json()) as { error: Record<string, unknown> };
        expect(body.error).to.include({ code: 'unsupported_media_type', param: 'header.Content-Type' });
        expect(body.error.requestId).to.equal(response.headers.get('request-id'));
      }
      expect(await notesOf(fresh)).to.have.length(0);
    });

    it('takes JSON with parameters or a +json type', async () => {
      for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/merge-patch+json']) {
        const response = await send('/v1/test-notes', { method: 'POST', headers: { 'Content-Type': type }, body: JSON.stringify({ text: 'ok', amount: 1 }) });
        expect(response.status, type).to.equal(201);
      }
    });

    it('keeps bodiless POSTs working: no body, no Content-Type', async () => {
      expect((await send('/v1/test-notes/bodiless/ping', { method: 'POST' })).status).to.equal(200);
      expect((await send('/v1/test-notes/bodiless/ping', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '' })).status).to.equal(200);
    });
  });

  describe('response headers', () => {
    it('sends no-store and nosniff on every API answer: success, refusal, replay and unknown route', async () => {
      const headers = { 'Idempotency-Key': `hdr-${Date.now()}` };
      const answers = [
        await merchant.sandbox.post('/v1/test-notes', { text: 'h', amount: 1 }, headers),
        await merchant.sandbox.post('/v1/test-notes', { text: 'h', amount: 1 }, headers),
        await merchant.sandbox.get('/v1/test-notes'),
        await merchant.sandbox.post('/v1/test-notes', { text: 'h' }),
        await service.client().get('/v1/test-notes'),
        await merchant.sandbox.get('/v1/nothing-here'),
        await service.client().get('/v1/openapi.json'),
        await service.client().get('/health'),
      ];
      expect(answers.map((answer) => answer.status)).to.deep.equal([201, 201, 200, 422, 401, 404, 200, 200]);
      for (const answer of answers) {
        expect(answer.headers.get('cache-control')).to.equal('no-store');
        expect(answer.headers.get('x-content-type-options')).to.equal('nosniff');
        expect(answer.headers.get('content-security-policy')).to.equal(null);
      }
    });

    it('protects every HTML answer: CSP with frame-ancestors, X-Frame-Options, Referrer-Policy, nosniff', async () => {
      const page = await service.client().get('/docs');
      expect(page.headers.get('content-type')).to.contain('text/html');
      expect(page.headers.get('content-security-policy')).to.equal(HTML_CONTENT_SECURITY_POLICY);
      expect(page.headers.get('content-security-policy')).to.contain("frame-ancestors 'none'").and.contain("script-src 'self'");
      expect(page.headers.get('x-frame-options')).to.equal('DENY');
      expect(page.headers.get('referrer-policy')).to.equal('no-referrer');
      expect(page.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(page.headers.get('cache-control')).to.equal('no-store');
    });

    it('keeps the caching a route chose for public files', async () => {
      const asset = await service.client().get('/docs/assets/swagger-ui.css');
      expect(asset.status).to.equal(200);
      expect(asset.headers.get('cache-control')).to.equal('public, max-age=3600');
      expect(asset.headers.get('x-content-type-options')).to.equal('nosniff');
    });
  });
});
