import { expect } from 'chai';
import { CheckBankCharges } from '../../../../application/payments/check-bank-charges';
import { CreateBankChargePayment } from '../../../../application/payments/create-bank-charge-payment';
import { bankChargeDeps, SteppingClock } from '../../../support/payment-fakes';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const later = (ms: number) => new Date(NOW.getTime() + ms);

/**
 * How the service learns of a Pix or boleto over fakes: it always asks the bank (a notice's claim is never taken as
 * true), captures what the bank says paid, cancels what lapsed (removing it at the bank first once the service's clock
 * passes its expiry), records money paid after the payment ended as a late payment, and polls open charges on a
 * schedule, one worker at a time.
 */
describe('CheckBankCharges', () => {
  const setup = async () => {
    const clock = new SteppingClock(new Date(NOW));
    const built = await bankChargeDeps(clock);
    const checks = new CheckBankCharges(built.deps, { owner: 'worker_1' });
    const pix = await new CreateBankChargePayment(built.deps).execute(
      { scope: built.scope, amount: 12_345, methodType: 'pix', customerId: built.payerId, pix: { expiresInSeconds: 600 }, hasCard: false, hasPaymentMethodId: false },
      null,
    );
    const charge = pix.acquirer.acquirerPaymentId!;
    const status = async () => (await built.deps.payments.find({} as never, built.scope, pix.id))!.view();
    return { ...built, clock, checks, pix, charge, status, check: () => checks.check(built.scope, pix.id) };
  };

  it('a charge the bank has not been paid changes nothing, whatever a notice claimed', async () => {
    const { check, status, outbox, waits, pix } = await setup();
    expect(await check()).to.equal('awaiting_payment');
    expect((await status()).status).to.equal('requires_action');
    expect(outbox.types()).to.deep.equal([]);
    expect(waits.rows.has(pix.id)).to.equal(true);
  });

  it('paid at the bank: captured once with payment.captured, the wait released; asking again does nothing more', async () => {
    const { check, status, outbox, waits, bank, charge, pix } = await setup();
    bank.pay(charge);
    expect(await check()).to.equal('paid');
    expect(await status()).to.include({ status: 'captured', capturedAmount: 12_345 });
    expect(waits.rows.has(pix.id)).to.equal(false);
    expect(await check()).to.equal('not_open');
    expect(outbox.types()).to.deep.equal(['payment.captured']);
    expect(bank.calls.every((c) => !c.insideTransaction)).to.equal(true);
  });

  it('lapsed at the bank: canceled with payment.canceled, nothing removed', async () => {
    const { check, status, outbox, bank, charge } = await setup();
    bank.lapse(charge);
    expect(await check()).to.equal('expired');
    expect((await status()).status).to.equal('canceled');
    expect(outbox.types()).to.deep.equal(['payment.canceled']);
    expect(bank.callsOf('cancel')).to.deep.equal([]);
  });

  it('past its expiry on the service clock: removed at the bank first, then canceled', async () => {
    const { check, status, outbox, bank, charge, clock, pix } = await setup();
    clock.current = later(599_000);
    expect(await check()).to.equal('awaiting_payment');
    clock.current = later(600_000);
    expect(await check()).to.equal('expired');
    expect(bank.callsOf('cancel')).to.deep.equal([`${pix.id}:expire`]);
    expect(bank.status(charge)).to.equal('canceled');
    expect((await status()).status).to.equal('canceled');
    expect(outbox.types()).to.deep.equal(['payment.canceled']);
  });

  it('past its expiry, a payer who paid as the charge was being removed wins: captured', async () => {
    const { check, status, outbox, bank, charge, clock } = await setup();
    clock.current = later(600_000);
    bank.payWhileRemoving.add(charge);
    expect(await check()).to.equal('paid');
    expect((await status()).status).to.equal('captured');
    expect(outbox.types()).to.deep.equal(['payment.captured']);
  });

  it('a bank that does not answer changes nothing (asked again later)', async () => {
    const { check, status, outbox, bank, clock } = await setup();
    bank.unreachable = true;
    expect(await check()).to.equal('no_answer');
    clock.current = later(600_000);
    expect(await check()).to.equal('no_answer');
    expect((await status()).status).to.equal('requires_action');
    expect(outbox.types()).to.deep.equal([]);
  });

  it('paid after the payment ended unpaid: recorded once as a late payment with payment.late_payment_received; the status stays', async () => {
    const { check, status, outbox, bank, charge } = await setup();
    bank.lapse(charge);
    await check();
    // the bank changes its mind (a transfer settled after the charge lapsed at the service)
    bank.charges.get(charge)!.status = 'paid';
    bank.charges.get(charge)!.paidAt = later(700_000).toISOString();
    expect(await check()).to.equal('late_payment_recorded');
    const p = await status();
    expect(p.status).to.equal('canceled');
    expect(p.latePayment).to.deep.equal({ amount: 12_345, paidAt: later(700_000).toISOString(), recordedAt: NOW.toISOString() });
    expect(await check()).to.equal('not_open');
    expect(outbox.types()).to.deep.equal(['payment.canceled', 'payment.late_payment_received']);
    expect(outbox.events[1]!.object).to.deep.include({ status: 'canceled', latePayment: p.latePayment });
  });

  it('a canceled payment whose charge the bank did not get paid records nothing', async () => {
    const { check, outbox, bank, charge } = await setup();
    bank.lapse(charge);
    await check();
    expect(await check()).to.equal('not_open');
    expect(outbox.types()).to.deep.equal(['payment.canceled']);
  });

  describe('polling', () => {
    it('nothing is due before the first poll; a due poll is leased to one worker, and a charge still open is put off by the schedule', async () => {
      const { checks, clock, pix, waits, deps } = await setup();
      expect(await checks.claimDue(10)).to.deep.equal([]);
      clock.current = later(60_000);
      const [claimed, ...none] = await checks.claimDue(10);
      expect(none).to.deep.equal([]);
      expect(claimed).to.include({ paymentId: pix.id, kind: 'bank_notice', leaseOwner: 'worker_1' });
      expect(await new CheckBankCharges(deps, { owner: 'worker_2' }).claimDue(10), 'leased to worker_1').to.deep.equal([]);
      expect(await checks.poll(claimed!)).to.equal('awaiting_payment');
      // waited 60 s: the next look a minute later (half the time waited, at least a minute), lease freed
      expect(waits.rows.get(pix.id)).to.deep.include({ leaseOwner: null });
      expect(waits.rows.get(pix.id)!.wait.dueAt!.toISOString()).to.equal(later(120_000).toISOString());
    });

    it('a poll finds a lost notice\'s payment: captured, and no poll is due any more', async () => {
      const { checks, clock, pix, bank, charge, status } = await setup();
      bank.pay(charge);
      clock.current = later(60_000);
      const [claimed] = await checks.claimDue(10);
      expect(await checks.poll(claimed!)).to.equal('paid');
      expect((await status()).status).to.equal('captured');
      clock.current = later(3_600_000);
      expect((await checks.claimDue(10)).map((w) => w.paymentId)).to.not.include(pix.id);
    });

    it('a poll the bank does not answer is put off, never dropped', async () => {
      const { checks, clock, pix, bank, waits } = await setup();
      bank.unreachable = true;
      clock.current = later(60_000);
      const [claimed] = await checks.claimDue(10);
      expect(await checks.poll(claimed!)).to.equal('no_answer');
      expect(waits.rows.get(pix.id)!.wait.dueAt!.getTime()).to.be.greaterThan(later(60_000).getTime());
    });
  });
});
