import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { createEdgeApp } from '../../../edge/app';
import { defineRoute, type RouteDefinition } from '../../../edge/http/route';
import { createLogger } from '../../../infrastructure/logging/logger';

type Call = (method: string, path: string) => Promise<{ status: number; body: { route?: string; params?: Record<string, string>; error?: { code: string } } }>;

/** Which route answers a request: the edge dispatches to a router per group of paths (`/v1/payments`, `/health`). */
describe('edge routing', () => {
  const route = (method: RouteDefinition['method'], path: string): RouteDefinition =>
    defineRoute({
      method, path, operationId: `${method}${path}`, summary: path, tag: 'Test', auth: 'none', successStatus: 200,
      handler: async (request) => ({ body: { route: `${method.toUpperCase()} ${path}`, params: request.params } }),
    });

  const edgeFor = (routes: RouteDefinition[]) =>
    createEdgeApp({
      routes,
      authenticators: [],
      idempotency: { begin: async () => ({ kind: 'started' }), complete: async () => undefined, abandon: async () => undefined },
      rateLimiter: { consume: async () => ({ allowed: true, retryAfterSeconds: 0 }) },
      logger: createLogger('silent'),
      newRequestId: () => 'req_1',
      now: () => new Date(),
    });

  /** Serves these routes on loopback for the body of `use`. */
  async function withEdge(routes: RouteDefinition[], use: (call: Call) => Promise<void>): Promise<void> {
    const app = edgeFor(routes);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const call: Call = async (method, path) => {
      const response = await fetch(`${url}${path}`, { method });
      return { status: response.status, body: (await response.json()) as { route?: string; params?: Record<string, string>; error?: { code: string } } };
    };
    try {
      await use(call);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }

  const routes = [
    route('get', '/v1/payments'),
    route('get', '/v1/payments/summary'),
    route('get', '/v1/payments/:id'),
    route('post', '/v1/payments/:id/capture'),
    route('get', '/v1/payment-methods/:id'),
    route('get', '/health'),
    route('get', '/health/ready'),
  ];

  it('answers each path with its route, parameters included, across groups', async () => {
    await withEdge(routes, async (call) => {
      expect((await call('GET', '/v1/payments')).body.route).to.equal('GET /v1/payments');
      expect((await call('GET', '/v1/payments/summary')).body.route).to.equal('GET /v1/payments/summary');
      const one = await call('GET', '/v1/payments/pay_1');
      expect(one.body).to.deep.equal({ route: 'GET /v1/payments/:id', params: { id: 'pay_1' } });
      expect((await call('POST', '/v1/payments/pay_1/capture')).body.params).to.deep.equal({ id: 'pay_1' });
      expect((await call('GET', '/v1/payment-methods/pm_1')).body.route).to.equal('GET /v1/payment-methods/:id');
      expect((await call('GET', '/health')).body.route).to.equal('GET /health');
      expect((await call('GET', '/health/ready')).body.route).to.equal('GET /health/ready');
    });
  });

  it('matches as @koa/router does: case-insensitively, with or without a trailing slash', async () => {
    await withEdge(routes, async (call) => {
      expect((await call('GET', '/V1/Payments/pay_1')).body.route).to.equal('GET /v1/payments/:id');
      expect((await call('GET', '/health/')).body.route).to.equal('GET /health');
      expect((await call('GET', '/v1/payments/')).body.route).to.equal('GET /v1/payments');
    });
  });

  it('answers 405 for a known path with another method, and 404 for an unknown path', async () => {
    await withEdge(routes, async (call) => {
      const wrongMethod = await call('DELETE', '/v1/payments/pay_1');
      expect(wrongMethod.status).to.equal(405);
      expect(wrongMethod.body.error?.code).to.equal('method_not_allowed');
      expect((await call('GET', '/v1/refunds')).status).to.equal(404);
      expect((await call('GET', '/v1/payments/pay_1/nothing')).status).to.equal(404);
      expect((await call('GET', '/')).status).to.equal(404);
    });
  });

  it('refuses at start-up a route whose first segment is not literal (it would need every group)', () => {
    expect(() => edgeFor([route('get', '/:version/payments')])).to.throw(/first path segment must be literal/);
    // A page addressed by id right under a literal segment (the hosted checkout, /checkout/:paymentId) is grouped by it.
    expect(() => edgeFor([route('get', '/pages/:id')])).not.to.throw();
  });
});
