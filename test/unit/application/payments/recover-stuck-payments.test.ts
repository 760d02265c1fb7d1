import { expect } from 'chai';
import { CreatePayment } from '../../../../application/payments/create-payment';
import { RecoverStuckPayments } from '../../../../application/payments/recover-stuck-payments';
import type { PaymentDeps } from '../../../../application/payments/payment-deps';
import { account, paymentDeps, SteppingClock, type ScriptedAnswer } from '../../../support/payment-fakes';
import { GRACE_MS, recoveryDeps } from '../../../support/payment-recovery-fakes';

const sandbox = { organizationId: 'org_1', environment: 'sandbox' as const };
const card = { token: 'tok_sandbox_any', brand: 'visa', last4: '1111' };
const T0 = new Date('2026-03-01T12:00:00.000Z');

/**
 * A payment whose creating process died after its calls and before tx2: the acquirers answered as scripted, but
 * nothing of it was recorded. Left processing, with its routing row and the attempt ids sent, leased until T0 + grace.
 */
async function stuckPayment(before: Record<string, ScriptedAnswer[]>) {
  const clock = new SteppingClock(new Date(T0));
  const setup = paymentDeps([account('ca_a', 100), account('ca_b', 200)], clock);
  const recovery = recoveryDeps(setup.payments);
  const deps: PaymentDeps = { ...setup.deps, recovery };
  for (const [id, answers] of Object.entries(before)) setup.connectors.script(id, ...answers);
  recovery.store.crashOnSettle = true;
  await new CreatePayment(deps).execute({ scope: sandbox, amount: 10_000, card }).then(
    () => expect.fail('the creating process should have died before tx2'),
    (error: Error) => expect(error.message).to.equal('process died before tx2'),
  );
  const paymentId = [...setup.payments.rows.values()][0]!.id;
  const sentBefore = setup.connectors.calls.map((c) => [c.accountId, c.input.idempotencyKey]);
  setup.connectors.calls.length = 0;
  setup.outbox.events.length = 0;
  recovery.store.renewals.length = 0;
  const stored = () => setup.payments.rows.get(`org_1/sandbox/${paymentId}`)!;
  const afterGrace = () => void (clock.current = new Date(T0.getTime() + GRACE_MS + 1));
  return { ...setup, store: recovery.store, paymentId, sentBefore, stored, afterGrace, recover: new RecoverStuckPayments(deps, recovery) };
}

describe('RecoverStuckPayments (finishing card payments whose creating process died between tx1 and tx2)', () => {
  it('leaves alone a payment whose lease has not expired: the creating request may still be alive', async () => {
    const { recover, connectors, stored } = await stuckPayment({});
    expect(await recover.run()).to.equal(0);
    expect(connectors.calls).to.have.length(0);
    expect(stored().status).to.equal('processing');
  });

  it('re-sends the saved attempt with the SAME attempt id and records the outcome once, with its events', async () => {
    const { recover, connectors, stored, sentBefore, outbox, store, afterGrace, paymentId } = await stuckPayment({});
    afterGrace();
    expect(await recover.run()).to.equal(1);
    expect(connectors.calls.map((c) => [c.accountId, c.input.idempotencyKey])).to.deep.equal(sentBefore);
    const p = stored();
    expect([p.status, p.connectorAccountId, p.attempts.map((a) => a.id)]).to.deep.equal(['captured', 'ca_a', [sentBefore[0]![1]]]);
    expect(p.flowRun?.status).to.equal('ended');
    expect(outbox.types()).to.include('payment.captured');
    expect(store.routings.has(paymentId)).to.equal(false);
    // nothing left to recover: a second pass calls nobody
    afterGrace();
    expect(await recover.run()).to.equal(0);
    expect(connectors.calls).to.have.length(1);
  });

  it('resumes the run where tx1 left it, reusing every saved attempt id for its account (no new attempt for them)', async () => {
    const { recover, connectors, stored, sentBefore, store, afterGrace } = await stuckPayment({ ca_a: ['technical'] });
    expect(sentBefore.map(([account]) => account)).to.deep.equal(['ca_a', 'ca_b']);
    connectors.script('ca_a', 'technical');
    afterGrace();
    await recover.run();
    expect(connectors.calls.map((c) => [c.accountId, c.input.idempotencyKey])).to.deep.equal(sentBefore);
    // the worker extended its lease before each re-send and saved no new intent
    expect(store.renewals.map((r) => [r.leaseOwner.startsWith('rcv_'), r.intent])).to.deep.equal([[true, null], [true, null]]);
    expect([stored().status, stored().connectorAccountId]).to.deep.equal(['captured', 'ca_b']);
  });

  it('a saved attempt not re-sent because an earlier one now decided is reconciled (its outcome is unknown)', async () => {
    const { recover, connectors, stored, sentBefore, store, afterGrace } = await stuckPayment({ ca_a: ['timeout'] });
    afterGrace();
    await recover.run();
    expect(connectors.calls.map((c) => c.accountId)).to.deep.equal(['ca_a']);
    const leftover = sentBefore[1]![1]!;
    expect(stored().attempts.find((a) => a.id === leftover)).to.deep.include({ connectorAccountId: 'ca_b', outcome: 'timeout' });
    expect([...store.reconciliations.keys()]).to.deep.equal([leftover]);
  });

  it('every account failing again: failed with connector_unavailable, saying it was recovered after an interruption', async () => {
    const { recover, connectors, stored, afterGrace } = await stuckPayment({});
    connectors.script('ca_a', 'technical').script('ca_b', 'technical');
    afterGrace();
    await recover.run();
    expect(stored().status).to.equal('failed');
    expect(stored().error?.code).to.equal('connector_unavailable');
    expect(stored().error?.message).to.include('(recovered after an interruption)');
  });

  it('a worker whose lease was taken over before its call sends nothing and records nothing', async () => {
    const { recover, connectors, stored, store, afterGrace, paymentId } = await stuckPayment({});
    afterGrace();
    const [routing] = await recover.claim(10);
    store.takeOver(paymentId);
    expect(await recover.recover(routing!)).to.equal(false);
    expect(connectors.calls).to.have.length(0);
    expect(stored().status).to.equal('processing');
  });
});
