import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { GrpcAcquirerGateway } from '../../infrastructure/grpc/grpc-acquirer.gateway';
import { startSandboxAcquirer } from '../../infrastructure/connectors/sandbox/sandbox-acquirer.server';
import { SANDBOX_CAPABILITIES, scenarioNameForToken } from '../../infrastructure/connectors/sandbox/scenarios';
import { runAcquirerContract } from './acquirer-contract';

const credentials = { values: { merchantId: 'merchant_contract', apiKey: 'sk_test_sandbox' }, config: {} };

runAcquirerContract('sandbox (real gRPC on loopback)', async () => {
  // The timeout scenario sleeps longer than the gateway deadline, both short so the suite stays fast.
  const server = await startSandboxAcquirer({ timeoutScenarioDelayMs: 2_000 });
  const gateway = new GrpcAcquirerGateway(server.address, { deadlineMs: 400, slug: 'sandbox' });
  return {
    gateway,
    address: server.address,
    credentials,
    invalidCredentials: { values: { merchantId: 'merchant_contract', apiKey: 'invalid' }, config: {} },
    unreachableCredentials: { values: { merchantId: 'merchant_contract', apiKey: 'unreachable' }, config: {} },
    tokens: {
      approved: 'tok_sandbox_approved',
      declines: [
        { token: 'tok_sandbox_insufficient_funds', rawCode: '51' },
        { token: 'tok_sandbox_do_not_honor', rawCode: '05' },
        { token: 'tok_sandbox_invalid_cvv', rawCode: '82' },
        { token: 'tok_sandbox_stolen_card', rawCode: '43' },
        { token: 'tok_sandbox_expired_card', rawCode: '54' },
      ],
      processingError: 'tok_sandbox_processing_error',
      timeout: 'tok_sandbox_timeout',
    },
    async teardown() {
      gateway.close();
      await server.stop();
    },
  };
});

describe('sandbox acquirer specifics (contract.md section 5)', () => {
  let server: Awaited<ReturnType<typeof startSandboxAcquirer>>;
  let gateway: GrpcAcquirerGateway;

  before(async () => {
    server = await startSandboxAcquirer({ timeoutScenarioDelayMs: 2_000, fraudReviewDelayMs: 50 });
    gateway = new GrpcAcquirerGateway(server.address, { deadlineMs: 1_000 });
  });

  after(async () => {
    gateway.close();
    await server.stop();
  });

  const authorize = (token: string, capture = false) =>
    gateway.authorize({
      credentials,
      idempotencyKey: `att_${randomUUID()}`,
      paymentId: 'pay_specific',
      source: { type: 'card', token },
      amount: 2500,
      currency: 'BRL',
      capture,
    });

  it('chooses the scenario by token, longest name first, with an optional vault suffix; other tokens approve', () => {
    expect(scenarioNameForToken('tok_sandbox_insufficient_funds')).to.equal('insufficient_funds');
    expect(scenarioNameForToken('tok_sandbox_fraud_review_accept_01JABC')).to.equal('fraud_review_accept');
    expect(scenarioNameForToken('tok_sandbox_fraud_review')).to.equal('fraud_review');
    expect(scenarioNameForToken('tok_sandbox_fraud_reviewer')).to.equal('approved');
    expect(scenarioNameForToken('tok_visa_4242')).to.equal('approved');
  });

  it('declares the sandbox capabilities and marks apiKey (only) as secret', async () => {
    const description = await gateway.describe();
    expect(description).to.include({ slug: 'sandbox', kind: 'acquirer', available: true });
    expect(description.capabilities).to.have.members([...SANDBOX_CAPABILITIES]);
    expect(description.credentialSchema.required).to.have.members(['merchantId', 'apiKey']);
    expect(description.credentialSchema.properties?.['apiKey']?.['x-secret']).to.equal(true);
    expect(description.credentialSchema.properties?.['merchantId']?.['x-secret']).to.equal(undefined);
  });

  it('answers invalid when a credential is missing', async () => {
    const result = await gateway.verifyCredentials({ credentials: { values: { merchantId: 'm' }, config: {} } });
    expect(result.result).to.equal('invalid');
  });

  for (const token of ['tok_sandbox_fraud_review', 'tok_sandbox_fraud_review_accept', 'tok_sandbox_fraud_review_reject']) {
    it(`${token}: authorized (not captured, even with automatic capture) and held in fraud review`, async () => {
      const result = await authorize(token, true);
      expect(result).to.include({ status: 'approved', rawCode: '00', fraudReviewPending: true, capturedAmount: 0 });
    });
  }

  it('three_ds: asks for 3DS authentication instead of authorizing', async () => {
    const result = await authorize('tok_sandbox_three_ds');
    expect(result.status).to.equal('pending_action');
    if (result.status === 'pending_action') expect(result.action.type).to.equal('three_ds');
  });

  it('sends the timeout scenario past the deadline without charging: a later approval under a new key is independent', async () => {
    const quick = new GrpcAcquirerGateway(server.address, { deadlineMs: 150 });
    try {
      await expect(authorize('tok_sandbox_approved')).to.eventually.have.property('status', 'approved');
      const error = await quick
        .authorize({
          credentials,
          idempotencyKey: `att_${randomUUID()}`,
          paymentId: 'pay_t',
          source: { type: 'card', token: 'tok_sandbox_timeout' },
          amount: 100,
          currency: 'BRL',
          capture: false,
        })
        .catch((e: unknown) => e);
      expect(error).to.include({ kind: 'timeout', outcomeUnknown: true });
    } finally {
      quick.close();
    }
  });
});
