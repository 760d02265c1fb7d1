import { expect } from 'chai';
import { CreatePayment } from '../../../../application/payments/create-payment';
import type { PaymentDeps } from '../../../../application/payments/payment-deps';
import { MAX_RECONCILIATION_TRIES, ReconcileUnknownAttempts } from '../../../../application/payments/reconcile-unknown-attempts';
import { account, approved, declined, paymentDeps, SteppingClock } from '../../../support/payment-fakes';
import { recoveryDeps } from '../../../support/payment-recovery-fakes';

const sandbox = { organizationId: 'org_1', environment: 'sandbox' as const };
const card = { token: 'tok_sandbox_any', brand: 'visa', last4: '1111' };

/** A payment approved on ca_b after ca_a timed out: ca_a's attempt is queued for reconciliation. */
async function timedOutThenApproved() {
  const clock = new SteppingClock(new Date('2026-03-01T12:00:00.000Z'));
  const setup = paymentDeps([account('ca_a', 100), account('ca_b', 200)], clock);
  const recovery = recoveryDeps(setup.payments);
  const deps: PaymentDeps = { ...setup.deps, recovery };
  setup.connectors.script('ca_a', 'timeout');
  const payment = await new CreatePayment(deps).execute({ scope: sandbox, amount: 10_000, card });
  const attemptId = payment.attempts[0]!.id;
  setup.connectors.calls.length = 0;
  const task = () => recovery.store.reconciliations.get(attemptId)!;
  const attempt = () => setup.payments.rows.get(`org_1/sandbox/${payment.id}`)!.attempts.find((a) => a.id === attemptId)!;
  return { ...setup, clock, store: recovery.store, payment, attemptId, task, attempt, reconcile: new ReconcileUnknownAttempts(deps, recovery) };
}

describe('ReconcileUnknownAttempts (an attempt that timed out on a payment routing decided otherwise)', () => {
  it('the timed-out attempt is what gets queued, and the payment is approved on the fallback', async () => {
    const { payment, attemptId, task } = await timedOutThenApproved();
    expect([payment.status, payment.attempts.map((a) => a.outcome)]).to.deep.equal(['captured', ['timeout', 'approved']]);
    expect(task()).to.deep.include({ attemptId, connectorAccountId: 'ca_a', status: 'pending', tries: 0 });
  });

  it('re-sends Authorize with the SAME attempt id; authorized there after all: voided with the task reversal key, recorded on the attempt', async () => {
    const { reconcile, connectors, attemptId, task, attempt } = await timedOutThenApproved();
    connectors.script('ca_a', approved());
    expect(await reconcile.run()).to.equal(1);
    expect(connectors.calls.map((c) => [c.accountId, c.input.idempotencyKey])).to.deep.equal([['ca_a', attemptId]]);
    expect(connectors.operations.map((o) => [o.kind, o.idempotencyKey])).to.deep.equal([['void', task().reversalKey]]);
    expect(task()).to.deep.include({ status: 'voided', tries: 1 });
    expect(attempt().reconciliation).to.deep.include({ status: 'voided', tries: 1, acquirerPaymentId: 'acq_1', operationId: task().reversalKey, amount: 10_000 });
  });

  it('captured there after all: refunded for the captured amount', async () => {
    const { reconcile, connectors, task } = await timedOutThenApproved();
    connectors.script('ca_a', { ...approved(), capturedAmount: 10_000 });
    await reconcile.run();
    expect(connectors.operations.map((o) => [o.kind, o.amount])).to.deep.equal([['refund', 10_000]]);
    expect(task().status).to.equal('refunded');
  });

  it('declined on re-send: not_authorized, nothing reversed', async () => {
    const { reconcile, connectors, task, attempt } = await timedOutThenApproved();
    connectors.script('ca_a', declined('05'));
    await reconcile.run();
    expect(connectors.operationCalls).to.deep.equal([]);
    expect(task().status).to.equal('not_authorized');
    expect(attempt().reconciliation).to.deep.include({ status: 'not_authorized', rawCode: '05', operationId: null });
  });

  it('the acquirer refusing the reversal is reversal_refused, for a person to follow up', async () => {
    const { reconcile, connectors, task } = await timedOutThenApproved();
    connectors.script('ca_a', approved()).scriptOperation('void', 'declined');
    expect(await reconcile.run()).to.equal(1);
    expect(task().status).to.equal('reversal_refused');
  });

  it('no answer again: stays pending, retried later with backoff (not before), unresolved after the last try', async () => {
    const { reconcile, connectors, clock, task, attempt } = await timedOutThenApproved();
    connectors.script('ca_a', ...Array<'timeout'>(MAX_RECONCILIATION_TRIES).fill('timeout'));
    expect(await reconcile.run()).to.equal(0);
    expect(task()).to.deep.include({ status: 'pending', tries: 1 });
    expect(task().nextAt).to.be.greaterThan(clock.current.getTime());
    expect(await reconcile.run()).to.equal(0);
    expect(connectors.calls).to.have.length(1);
    for (let n = 2; n <= MAX_RECONCILIATION_TRIES; n++) {
      clock.current = new Date(task().nextAt);
      await reconcile.run();
    }
    expect(task()).to.deep.include({ status: 'unresolved', tries: MAX_RECONCILIATION_TRIES });
    expect(attempt().reconciliation?.status).to.equal('unresolved');
    expect(connectors.operationCalls).to.deep.equal([]);
  });

  it('a task claimed by one worker is not worked by another while its lease holds', async () => {
    const { reconcile, connectors } = await timedOutThenApproved();
    const claimed = await reconcile.claim(10);
    expect(claimed).to.have.length(1);
    expect(await reconcile.claim(10)).to.deep.equal([]);
    expect(connectors.calls).to.have.length(0);
  });
});
