import { expect } from 'chai';
import { threadId } from 'node:worker_threads';
import { loadConfig } from '../../../infrastructure/config/config';
import { GrpcAcquirerGateway } from '../../../infrastructure/grpc/grpc-acquirer.gateway';
import { GrpcAntifraudGateway } from '../../../infrastructure/grpc/grpc-antifraud.gateway';
import { createLogger } from '../../../infrastructure/logging/logger';
import { startEmbeddedAdapters } from '../../../infrastructure/main/embedded-adapters';

describe('embedded adapters in worker threads (make run)', () => {
  it('runs each shipped adapter off the main thread, reachable over gRPC, until stopped', async () => {
    const adapters = await startEmbeddedAdapters(loadConfig({ LOG_LEVEL: 'silent' }), createLogger('silent'), { threads: true });
    const address = (slug: string) => adapters.adapters.find((a) => a.slug === slug)!.address;
    const acquirer = new GrpcAcquirerGateway(address('sandbox'), { deadlineMs: 2_000 });
    const antifraud = new GrpcAntifraudGateway(address('sandbox-antifraud'));
    try {
      expect((await acquirer.describe()).slug).to.equal('sandbox');
      expect((await antifraud.describe()).kind).to.equal('antifraud');
      const approved = await acquirer.authorize({
        credentials: { values: { merchantId: 'm_threads', apiKey: 'k1' }, config: {} },
        idempotencyKey: 'att_threads_1',
        paymentId: 'pay_threads_1',
        source: { type: 'card', token: 'tok_sandbox_approved' },
        amount: 1_990,
        currency: 'BRL',
        capture: true,
        installments: 1,
        initiator: 'customer',
      });
      expect(approved.status).to.equal('approved');
      expect(adapters.threadIds).to.have.length(2);
      for (const id of adapters.threadIds) expect(id).to.be.a('number').and.not.equal(threadId);
    } finally {
      acquirer.close();
      antifraud.close();
      await adapters.stop();
    }
    const again = new GrpcAcquirerGateway(address('sandbox'), { deadlineMs: 500 });
    try {
      await expect(again.describe()).to.be.rejected; // the thread's server is gone
    } finally {
      again.close();
    }
  });
});
