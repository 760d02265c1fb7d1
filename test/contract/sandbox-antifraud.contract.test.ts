import { GrpcAntifraudGateway } from '../../infrastructure/grpc/grpc-antifraud.gateway';
import { startSandboxAntifraud } from '../../infrastructure/connectors/sandbox-antifraud/sandbox-antifraud.server';
import { runAntifraudContract } from './antifraud-contract';

runAntifraudContract('sandbox-antifraud (real gRPC on loopback)', async () => {
  const server = await startSandboxAntifraud();
  const gateway = new GrpcAntifraudGateway(server.address, { deadlineMs: 1_000, slug: 'sandbox-antifraud' });
  return {
    gateway,
    credentials: { values: { merchantId: 'merchant_af', apiKey: 'sk_test' }, config: {} },
    invalidCredentials: { values: { merchantId: 'merchant_af', apiKey: 'invalid' }, config: {} },
    unreachableCredentials: { values: { merchantId: 'merchant_af', apiKey: 'unreachable' }, config: {} },
    tokens: {
      approve: 'tok_sandbox_approved',
      review: 'tok_sandbox_antifraud_review',
      decline: 'tok_sandbox_antifraud_decline_01JX',
    },
    async teardown() {
      gateway.close();
      await server.stop();
    },
  };
});
