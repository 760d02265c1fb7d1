import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { defineAcquirerContract } from '../../connector-kit/acquirer-contract';
import { loadFixture } from '../../connector-kit/contract-fixture';
import { GrpcAcquirerGateway } from '../../infrastructure/grpc/grpc-acquirer.gateway';
import { startSandboxAcquirer } from '../../infrastructure/connectors/sandbox/sandbox-acquirer.server';
import { SANDBOX_CAPABILITIES, scenarioNameForToken } from '../../infrastructure/connectors/sandbox/scenarios';

const credentials = { values: { merchantId: 'merchant_contract', apiKey: 'sk_test_sandbox' }, config: {} };

// The partner runner's fixture for the sandbox (npm run connector-contract), so both run the same cases on the same data.
const fixture = loadFixture(path.resolve(__dirname, '../../connector-kit/fixtures/sandbox.json'));

defineAcquirerContract('sandbox (real gRPC on loopback)', fixture, fixture.capabilities ?? [], async () => {
  // The timeout scenario sleeps longer than the suite's short deadline, and wakes as soon as the caller gives up.
  const server = await startSandboxAcquirer({ timeoutScenarioDelayMs: 10_000 });
  return { address: server.address, teardown: () => server.stop() };
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
