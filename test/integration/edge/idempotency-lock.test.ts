import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { createEdgeApp } from '../../../edge/app';
import type { IdempotencyBegin, IdempotencyStore, StoredResponse } from '../../../edge/http/idempotency';
import { defineRoute } from '../../../edge/http/route';
import { createLogger } from '../../../infrastructure/logging/logger';

/** Keys in memory with the SQL store's lock rule: an in-flight key whose lock ran out is taken over by the same request. */
class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly keys = new Map<string, { hash: string; lockedUntil: number; response: StoredResponse | null }>();
  constructor(readonly lockMs: number) {}

  async begin(_scope: unknown, route: string, key: string, hash: string, now: Date): Promise<IdempotencyBegin> {
    const row = this.keys.get(`${route} ${key}`);
    if (row && row.hash !== hash) return { kind: 'conflict', reason: 'different_request' };
    if (row?.response) return { kind: 'replay', response: row.response };
    if (row && row.lockedUntil >= now.getTime()) return { kind: 'conflict', reason: 'in_flight' };
    this.keys.set(`${route} ${key}`, { hash, lockedUntil: now.getTime() + this.lockMs, response: null });
    return { kind: 'started' };
  }
  async renew(_scope: unknown, route: string, key: string, now: Date): Promise<void> {
    const row = this.keys.get(`${route} ${key}`);
    if (row && !row.response) row.lockedUntil = now.getTime() + this.lockMs;
  }
  async complete(_scope: unknown, route: string, key: string, response: StoredResponse): Promise<void> {
    this.keys.get(`${route} ${key}`)!.response = response;
  }
  async abandon(_scope: unknown, route: string, key: string): Promise<void> {
    this.keys.delete(`${route} ${key}`);
  }
}

describe('edge: an Idempotency-Key stays locked while its request runs', () => {
  it('a repetition after the lock duration, while the first request still runs, is 409 and runs nothing', async () => {
    let runs = 0;
    const slow = defineRoute({
      method: 'post', path: '/v1/things', operationId: 'createThing', summary: 'slow', tag: 'Test', auth: 'merchant', successStatus: 201, idempotent: true,
      handler: async () => {
        runs += 1;
        await new Promise((resolve) => setTimeout(resolve, 900));
        return { body: { run: runs } };
      },
    });
    const app = createEdgeApp({
      routes: [slow],
      authenticators: [async () => ({ kind: 'api_key', organizationId: 'org_1', environment: 'sandbox', scopes: new Set<string>() })],
      idempotency: new MemoryIdempotencyStore(300),
      rateLimiter: { consume: async () => ({ allowed: true, retryAfterSeconds: 0 }) },
      logger: createLogger('silent'),
      newRequestId: () => 'req_1',
      now: () => new Date(),
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const post = () =>
      fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/things`, {
        method: 'POST',
        headers: { authorization: 'Bearer k', 'content-type': 'application/json', 'idempotency-key': 'slow-1' },
        body: '{}',
      });
    try {
      const first = post();
      await new Promise((resolve) => setTimeout(resolve, 600)); // twice the lock: only renewal keeps it
      const repeated = await post();
      expect(repeated.status).to.equal(409);
      expect(((await repeated.json()) as { error: { code: string } }).error.code).to.equal('idempotency_conflict');
      expect((await first).status).to.equal(201);
      const replayed = await post();
      expect(replayed.headers.get('idempotent-replayed')).to.equal('true');
      expect(runs).to.equal(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
