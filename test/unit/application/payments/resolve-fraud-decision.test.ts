import { expect } from 'chai';
import { CreatePayment } from '../../../../application/payments/create-payment';
import { ResolveFraudDecision, type FraudDecisionReport } from '../../../../application/payments/resolve-fraud-decision';
import { account, approved, paymentDeps } from '../../../support/payment-fakes';

const sandbox = { organizationId: 'org_1', environment: 'sandbox' as const };
const card = { token: 'tok_sandbox_any', brand: 'visa', last4: '1111' };

/** A payment the acquirer approved but holds in fraud review, and the report that would settle it. */
async function heldInReview(captureMethod: 'automatic' | 'manual' = 'automatic') {
  const setup = paymentDeps([account('ca_a', 100)]);
  setup.connectors.script('ca_a', approved(true));
  const created = await new CreatePayment(setup.deps).execute({ scope: sandbox, amount: 10_000, card, captureMethod });
  setup.outbox.events.length = 0;
  const report = (decision: FraudDecisionReport['decision'], overrides: Partial<FraudDecisionReport> = {}): FraudDecisionReport => ({
    reportId: 'rep_1',
    connectorSlug: 'sandbox',
    acquirerPaymentId: 'acq_1',
    attemptId: created.attempts[0]!.id,
    decision,
    ...overrides,
  });
  const stored = async () => (await setup.payments.find({} as never, sandbox, created.id))!.toPrimitives();
  return { ...setup, resolve: new ResolveFraudDecision(setup.deps), report, stored };
}

describe('ResolveFraudDecision (the acquirer ended its fraud review)', () => {
  it('accepted with automatic capture: captured in full, the review resolved, captured before the review event', async () => {
    const { resolve, report, stored, outbox, connectors } = await heldInReview('automatic');
    expect(await resolve.execute(report('accepted'))).to.equal('resolved');
    const p = await stored();
    expect([p.status, p.capturedAmount, p.fraudReview?.status]).to.deep.equal(['captured', 10_000, 'accepted']);
    expect(p.operations.map((o) => [o.type, o.amount, o.reason])).to.deep.equal([['capture', 10_000, 'fraud_review_accepted']]);
    expect(outbox.types()[0]).to.equal('payment.captured');
    expect(outbox.types()).to.have.length(2);
    // The acquirer acts on its own decision: nothing is sent back to it.
    expect(connectors.operationCalls).to.have.length(0);
  });

  it('accepted with manual capture: stays authorized for the merchant to capture, nothing captured', async () => {
    const { resolve, report, stored, outbox } = await heldInReview('manual');
    expect(await resolve.execute(report('accepted'))).to.equal('resolved');
    const p = await stored();
    expect([p.status, p.capturedAmount, p.fraudReview?.status, p.operations.length]).to.deep.equal(['authorized', 0, 'accepted', 0]);
    expect(outbox.types()).to.have.length(1);
    expect(outbox.types()).not.to.include('payment.captured');
  });

  it('rejected: voided for the whole amount', async () => {
    const { resolve, report, stored, outbox } = await heldInReview('automatic');
    expect(await resolve.execute(report('rejected'))).to.equal('resolved');
    const p = await stored();
    expect([p.status, p.fraudReview?.status]).to.deep.equal(['voided', 'rejected']);
    expect(p.operations.map((o) => [o.type, o.releasedAmount, o.reason])).to.deep.equal([['void', 10_000, 'fraud_review_rejected']]);
    expect(outbox.types()[0]).to.equal('payment.voided');
  });

  it('a repeated report is already_resolved and changes nothing, even with the other decision', async () => {
    const { resolve, report, stored, outbox } = await heldInReview('automatic');
    await resolve.execute(report('accepted'));
    const before = await stored();
    const eventsBefore = outbox.types();
    expect(await resolve.execute(report('rejected', { reportId: 'rep_2' }))).to.equal('already_resolved');
    expect(await stored()).to.deep.equal(before);
    expect(outbox.types()).to.deep.equal(eventsBefore);
  });

  it('a report that does not match the attempt, connector or acquirer reference is unknown_payment and changes nothing', async () => {
    const { resolve, report, stored, outbox } = await heldInReview('automatic');
    const before = await stored();
    for (const mismatch of [{ attemptId: 'att_unknown' }, { connectorSlug: 'other_acquirer' }, { acquirerPaymentId: 'acq_other' }]) {
      expect(await resolve.execute(report('rejected', mismatch)), JSON.stringify(mismatch)).to.equal('unknown_payment');
    }
    expect(await stored()).to.deep.equal(before);
    expect(outbox.events).to.have.length(0);
  });

  it('an attempt that was not held in review is unknown_payment', async () => {
    const setup = paymentDeps([account('ca_a', 100)]);
    const created = await new CreatePayment(setup.deps).execute({ scope: sandbox, amount: 10_000, card });
    const result = await new ResolveFraudDecision(setup.deps).execute({
      reportId: 'rep_1', connectorSlug: 'sandbox', acquirerPaymentId: 'acq_1', attemptId: created.attempts[0]!.id, decision: 'rejected',
    });
    expect(result).to.equal('unknown_payment');
    expect((await setup.payments.find({} as never, sandbox, created.id))!.toPrimitives().status).to.equal('captured');
  });
});
