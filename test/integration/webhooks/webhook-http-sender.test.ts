import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpWebhookSender } from '../../../infrastructure/http/webhook-http-sender';
import { WebhookReceiver } from '../../support/webhook-receiver';
import type { UrlContext } from '../../../domain/webhook/webhook-url';

const local: UrlContext = { environment: 'sandbox', deployment: 'local' };
const production: UrlContext = { environment: 'sandbox', deployment: 'production' };

describe('HttpWebhookSender (real sockets on loopback)', function () {
  this.timeout(10_000);
  let receiver: WebhookReceiver;
  const sender = new HttpWebhookSender();
  const send = (url: string, ctx = local, timeoutMs = 2_000) =>
    sender.send({ url, headers: { 'Content-Type': 'application/json', 'X-A': 'b' }, body: '{"x":1}', timeoutMs, urlContext: ctx });

  before(async () => {
    receiver = await new WebhookReceiver().start();
  });
  after(() => receiver.stop());

  it('POSTs the body and headers and returns the answer', async () => {
    receiver.answer = () => ({ status: 201, body: 'created' });
    const r = await send(receiver.url('/ok'));
    expect(r).to.include({ status: 201, body: 'created', error: null });
    const got = receiver.forPath('/ok')[0];
    expect(got.rawBody.toString()).to.equal('{"x":1}');
    expect(got.headers['x-a']).to.equal('b');
  });

  it('resolves a name through the checked lookup (localhost allowed only for local sandbox)', async () => {
    receiver.answer = () => ({ status: 200, body: 'ok' });
    const ok = await send(`http://localhost:${receiver.port}/name`);
    expect(ok.status).to.equal(200);
    const blocked = await send(`http://localhost:${receiver.port}/name-blocked`, production);
    expect(blocked.status).to.equal(null);
    expect(blocked.error).to.match(/internal_address_blocked/);
    expect(receiver.forPath('/name-blocked')).to.have.length(0);
  });

  it('blocks a literal internal address before connecting', async () => {
    const r = await send(`http://127.0.0.1:${receiver.port}/literal`, { environment: 'live', deployment: 'local' });
    expect(r.status).to.equal(null);
    expect(r.error).to.match(/internal_address_blocked/);
    expect(receiver.forPath('/literal')).to.have.length(0);
  });

  it('does not follow redirects', async () => {
    receiver.answer = (req) => (req.path === '/redirect' ? { status: 302, headers: { Location: '/target' } } : { status: 200 });
    const r = await send(receiver.url('/redirect'));
    expect(r.status).to.equal(302);
    expect(receiver.forPath('/target')).to.have.length(0);
  });

  it('gives up after the timeout', async () => {
    receiver.answer = () => ({ status: 200, delayMs: 1_000 });
    const r = await send(receiver.url('/slow'), local, 200);
    expect(r.status).to.equal(null);
    expect(r.error).to.match(/no answer within 200 ms/);
    expect(r.durationMs).to.be.lessThan(900);
  });

  it('reads no more than a little over 8 KB of the answer', async () => {
    receiver.answer = () => ({ status: 500, body: 'y'.repeat(200_000) });
    const r = await send(receiver.url('/big'));
    expect(r.status).to.equal(500);
    expect(r.body!.length).to.be.greaterThan(8192).and.at.most(8196);
  });

  it('reports a header Node refuses as data instead of throwing', async () => {
    const r = await sender.send({ url: receiver.url('/bad-header'), headers: { 'X-A': 'line\nbreak' }, body: '{}', timeoutMs: 1_000, urlContext: local });
    expect(r.status).to.equal(null);
    expect(r.error).to.be.a('string');
  });

  describe('pooled connections', () => {
    let server: http.Server;
    let port = 0;
    const remotePorts: number[] = [];
    let resetReused = false;
    const served = new WeakSet<object>();
    before(async () => {
      server = http.createServer((req, res) => {
        // A server that dropped an idle connection just as a request arrived on it: reset, no answer.
        if (resetReused && served.has(req.socket)) {
          req.socket.destroy();
          return;
        }
        served.add(req.socket);
        remotePorts.push(req.socket.remotePort!);
        req.resume();
        req.on('end', () => res.writeHead(200).end('ok'));
      });
      server.keepAliveTimeout = 60_000;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('reuses one connection per origin for attempts in turn', async () => {
      const pooled = new HttpWebhookSender();
      remotePorts.length = 0;
      for (let i = 0; i < 5; i++) {
        const r = await pooled.send({ url: `http://127.0.0.1:${port}/p${i}`, headers: {}, body: '{}', timeoutMs: 2_000, urlContext: local });
        expect(r.status).to.equal(200);
      }
      expect(remotePorts).to.have.length(5);
      expect(new Set(remotePorts).size).to.equal(1);
      pooled.close();
    });

    it('sends again on a fresh connection when the pooled one was dropped by the server meanwhile', async () => {
      const pooled = new HttpWebhookSender();
      resetReused = true;
      try {
        for (let i = 0; i < 5; i++) {
          const r = await pooled.send({ url: `http://127.0.0.1:${port}/s${i}`, headers: {}, body: '{}', timeoutMs: 2_000, urlContext: local });
          expect(r).to.include({ status: 200, error: null });
        }
      } finally {
        resetReused = false;
        pooled.close();
      }
    });

    it('checks the address of every new connection, whatever is pooled for another context', async () => {
      const pooled = new HttpWebhookSender();
      const ok = await pooled.send({ url: `http://localhost:${port}/ctx`, headers: {}, body: '{}', timeoutMs: 2_000, urlContext: local });
      expect(ok.status).to.equal(200);
      const blocked = await pooled.send({ url: `http://localhost:${port}/ctx`, headers: {}, body: '{}', timeoutMs: 2_000, urlContext: production });
      expect(blocked.status).to.equal(null);
      expect(blocked.error).to.match(/internal_address_blocked/);
      pooled.close();
    });
  });

  it('reports a refused connection as data', async () => {
    const r = await send('http://127.0.0.1:1/nothing');
    expect(r.status).to.equal(null);
    expect(r.error).to.match(/ECONNREFUSED/);
  });
});
