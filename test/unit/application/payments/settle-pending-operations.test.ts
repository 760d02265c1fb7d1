import { expect } from 'chai';
import { CapturePayment } from '../../../../application/payments/capture-payment';
import { CreatePayment } from '../../../../application/payments/create-payment';
import { SettlePendingOperations } from '../../../../application/payments/settle-pending-operations';
import { account, paymentDeps, SteppingClock } from '../../../support/payment-fakes';

const sandbox = { organizationId: 'org_1', environment: 'sandbox' as const };
const card = { token: 'tok_sandbox_any', brand: 'visa', last4: '1111' };

/** An authorized payment whose capture of 4,000 reached the acquirer (executed there) but got no answer. */
async function captureWithLostAnswer() {
  const clock = new SteppingClock(new Date('2026-03-01T12:00:00.000Z'));
  const setup = paymentDeps([account('ca_a', 100)], clock);
  const payment = await new CreatePayment(setup.deps).execute({ scope: sandbox, amount: 10_000, card, captureMethod: 'manual' });
  setup.connectors.scriptOperation('capture', 'timeout');
  await new CapturePayment(setup.deps).execute({ scope: sandbox, paymentId: payment.id, amount: 4_000 }).then(
    () => expect.fail('the capture should have got no answer'),
    (error: { code: string }) => expect(error.code).to.equal('connector_unavailable'),
  );
  setup.outbox.events.length = 0;
  const key = `org_1/sandbox/${payment.id}`;
  const pending = () => setup.payments.operations.get(key);
  const stored = () => setup.payments.rows.get(key)!;
  const whenDue = () => void (clock.current = new Date(pending()!.intent.settleAfter!));
  return { ...setup, clock, payment, pending, stored, whenDue, settle: new SettlePendingOperations(setup.deps) };
}

describe('SettlePendingOperations (money operations whose acquirer answer was lost)', () => {
  it('is not due before its settleAfter: the merchant may repeat the request first', async () => {
    const { settle, pending, connectors } = await captureWithLostAnswer();
    expect(pending()!.intent.settleAfter).to.be.a('string');
    expect(await settle.run()).to.equal(0);
    expect(connectors.operationCalls).to.have.length(1);
  });

  it('when due, repeats it under its first operation id: executed once at the acquirer, recorded once with its event', async () => {
    const { settle, whenDue, connectors, stored, pending, outbox } = await captureWithLostAnswer();
    whenDue();
    expect(await settle.run()).to.equal(1);
    const keys = connectors.operationCalls.map((c) => c.idempotencyKey);
    expect(keys).to.have.length(2);
    expect(keys[1]).to.equal(keys[0]);
    expect(connectors.operations.filter((o) => o.kind === 'capture')).to.have.length(1);
    expect([stored().status, stored().capturedAmount]).to.deep.equal(['captured', 4_000]);
    expect(outbox.types().filter((t) => t.startsWith('payment.'))).to.have.length(1);
    expect(pending()).to.equal(undefined);
    expect(await settle.run()).to.equal(0);
  });

  it('the acquirer refusing it ends the operation with nothing recorded', async () => {
    const { settle, whenDue, connectors, stored, pending, outbox } = await captureWithLostAnswer();
    connectors.scriptOperation('capture', 'declined');
    whenDue();
    expect(await settle.run()).to.equal(1);
    expect([stored().status, stored().capturedAmount, stored().operations.length]).to.deep.equal(['authorized', 0, 0]);
    expect(pending()).to.equal(undefined);
    expect(outbox.events).to.have.length(0);
  });

  it('no answer again: stays pending, rescheduled later with one more try, never lapsing', async () => {
    const { settle, whenDue, connectors, clock, pending, stored } = await captureWithLostAnswer();
    connectors.scriptOperation('capture', 'timeout');
    whenDue();
    const triedAt = clock.current.getTime();
    expect(await settle.run()).to.equal(0);
    expect(pending()).to.deep.include({ claimId: null });
    expect(pending()!.intent.settleTries).to.equal(1);
    expect(Date.parse(pending()!.intent.settleAfter!)).to.be.greaterThan(triedAt);
    expect(stored().status).to.equal('authorized');
    whenDue();
    expect(await settle.run()).to.equal(1);
    expect(stored().capturedAmount).to.equal(4_000);
  });
});
