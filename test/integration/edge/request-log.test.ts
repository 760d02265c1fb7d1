import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createEdgeApp } from '../../../edge/app';
import { defineRoute } from '../../../edge/http/route';
import { createLogger } from '../../../infrastructure/logging/logger';

/** The edge's request log: one line per request at info, carrying the request id; handlers log under the same id. */
describe('edge request log', () => {
  async function serve(level: string) {
    const lines: Array<Record<string, unknown>> = [];
    const stream = new Writable({ write(chunk, _encoding, done) { lines.push(JSON.parse(chunk.toString())); done(); } });
    let next = 0;
    const app = createEdgeApp({
      routes: [
        defineRoute({
          method: 'get', path: '/v1/echo', operationId: 'echo', summary: 'echo', tag: 'Test', auth: 'none', successStatus: 200,
          handler: async (request) => {
            request.log.warn({ step: 'inside' }, 'handler says');
            return { body: { ok: true } };
          },
        }),
      ],
      authenticators: [],
      idempotency: { begin: async () => ({ kind: 'started' }), complete: async () => undefined, abandon: async () => undefined },
      rateLimiter: { consume: async () => ({ allowed: true, retryAfterSeconds: 0 }) },
      logger: createLogger(level, stream),
      newRequestId: () => `req_${++next}`,
      now: () => new Date(),
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { lines, url, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  it('at info: the handler line and one request line, both with the Request-Id answered', async () => {
    const edge = await serve('info');
    try {
      const response = await fetch(`${edge.url}/v1/echo`);
      expect(response.status).to.equal(200);
      const requestId = response.headers.get('request-id');
      expect(edge.lines.map((l) => [l.msg, l.requestId])).to.deep.equal([
        ['handler says', requestId],
        ['request', requestId],
      ]);
      expect(edge.lines[1]).to.include({ method: 'GET', path: '/v1/echo', status: 200 });
    } finally {
      await edge.close();
    }
  });

  it('at warn: no request line, and what a handler logs at warn still carries the request id', async () => {
    const edge = await serve('warn');
    try {
      const response = await fetch(`${edge.url}/v1/echo`);
      expect(edge.lines.map((l) => [l.msg, l.requestId])).to.deep.equal([['handler says', response.headers.get('request-id')]]);
    } finally {
      await edge.close();
    }
  });
});
