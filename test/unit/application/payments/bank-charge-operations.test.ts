import { expect } from 'chai';
import { BankChargeOperations } from '../../../../application/payments/bank-charge-operations';
import { CheckBankCharges } from '../../../../application/payments/check-bank-charges';
import { CreateBankChargePayment } from '../../../../application/payments/create-bank-charge-payment';
import { CreatePayment } from '../../../../application/payments/create-payment';
import { VoidPayment } from '../../../../application/payments/void-payment';
import { DomainError } from '../../../../domain/shared/domain-error';
import { account, bankChargeDeps, FakeChargeSimulator, SteppingClock } from '../../../support/payment-fakes';

/**
 * Void and simulate of an open Pix or boleto over fakes. Void asks the bank first: a charge already paid (or paid as
 * it is removed) makes the payment captured and the void a 409; otherwise the charge is removed at the bank, then the
 * payment canceled. Simulate plays the sandbox bank and the service learns of it by asking, as from any bank.
 */
describe('BankChargeOperations (void and simulate of a Pix or boleto)', () => {
  const setup = async () => {
    const built = await bankChargeDeps(new SteppingClock(new Date('2026-03-01T12:00:00.000Z')));
    const simulator = new FakeChargeSimulator(built.bank);
    const simulatorsAsked: string[] = [];
    const operations = new BankChargeOperations(built.deps, new CheckBankCharges(built.deps, { owner: 'web' }), (slug) => (simulatorsAsked.push(slug), simulator));
    const pix = await new CreateBankChargePayment(built.deps).execute(
      { scope: built.scope, amount: 12_345, methodType: 'pix', customerId: built.payerId, hasCard: false, hasPaymentMethodId: false },
      null,
    );
    const charge = pix.acquirer.acquirerPaymentId!;
    const view = async () => (await built.deps.payments.find({} as never, built.scope, pix.id))!.view();
    return { ...built, operations, pix, charge, view, simulatorsAsked, voidIt: () => new VoidPayment(built.deps, operations).execute({ scope: built.scope, paymentId: pix.id, reason: 'order canceled' }) };
  };
  const refusal = async (work: Promise<unknown>) => {
    const error = await work.then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(DomainError);
    return error as DomainError;
  };

  describe('void', () => {
    it('an unpaid charge is removed at the bank (asked first, outside transactions), then the payment canceled and its wait released', async () => {
      const { voidIt, bank, charge, pix, outbox, waits, view } = await setup();
      const voided = await voidIt();
      expect(voided).to.include({ status: 'canceled', latePayment: null });
      expect(bank.calls.filter((c) => c.kind !== 'create_pix').map((c) => [c.kind, c.key, c.insideTransaction])).to.deep.equal([
        ['query', charge, false],
        ['cancel', `${pix.id}:void`, false],
      ]);
      expect(bank.status(charge)).to.equal('canceled');
      expect(outbox.types()).to.deep.equal(['payment.canceled']);
      expect(waits.rows.has(pix.id)).to.equal(false);
      expect((await view()).flowRun?.status).to.not.equal('waiting');
    });

    it('a charge the payer has already paid: 409 (invalid_state) and the payment becomes captured, nothing removed', async () => {
      const { voidIt, bank, charge, outbox, view } = await setup();
      bank.pay(charge);
      const error = await refusal(voidIt());
      expect(error.code).to.equal('invalid_state');
      expect(error.message).to.match(/just paid/);
      expect(bank.callsOf('cancel')).to.deep.equal([]);
      expect((await view()).status).to.equal('captured');
      expect(outbox.types()).to.deep.equal(['payment.captured']);
    });

    it('a payer who pays as the charge is being removed wins: 409 and captured', async () => {
      const { voidIt, bank, charge, outbox, view } = await setup();
      bank.payWhileRemoving.add(charge);
      expect((await refusal(voidIt())).code).to.equal('invalid_state');
      expect((await view()).status).to.equal('captured');
      expect(outbox.types()).to.deep.equal(['payment.captured']);
    });

    it('a bank that does not answer leaves the payment awaiting payment (the void can be tried again)', async () => {
      const { voidIt, bank, outbox, view } = await setup();
      bank.unreachable = true;
      expect(await voidIt().then(() => 'voided', () => 'failed')).to.equal('failed');
      expect((await view()).status).to.equal('requires_action');
      expect(outbox.types()).to.deep.equal([]);
    });

    it('a payment no longer awaiting payment has nothing to void here: invalid_state', async () => {
      const { operations, bank, charge, pix, scope, voidIt } = await setup();
      await voidIt();
      expect((await refusal(operations.void({ scope, paymentId: pix.id }))).code).to.equal('invalid_state');
      expect(bank.status(charge)).to.equal('canceled');
    });
  });

  describe('simulate', () => {
    it('paid captures, learnt by asking the bank as from any bank', async () => {
      const { operations, pix, scope, view, outbox, simulatorsAsked } = await setup();
      const paid = await operations.simulate({ scope, paymentId: pix.id, outcome: 'paid' });
      expect(paid.status).to.equal('captured');
      expect(simulatorsAsked).to.deep.equal(['sandbox']);
      expect(outbox.types()).to.deep.equal(['payment.captured']);
      expect((await view()).status).to.equal('captured');
    });

    it('expired cancels with payment.canceled', async () => {
      const { operations, pix, scope, outbox } = await setup();
      expect((await operations.simulate({ scope, paymentId: pix.id, outcome: 'expired' })).status).to.equal('canceled');
      expect(outbox.types()).to.deep.equal(['payment.canceled']);
    });

    it('409 (invalid_state) once the payment no longer awaits payment, and nothing changes', async () => {
      const { operations, pix, scope, outbox, view } = await setup();
      await operations.simulate({ scope, paymentId: pix.id, outcome: 'paid' });
      expect((await refusal(operations.simulate({ scope, paymentId: pix.id, outcome: 'expired' }))).code).to.equal('invalid_state');
      expect((await view()).status).to.equal('captured');
      expect(outbox.types()).to.deep.equal(['payment.captured']);
    });

    it('a card payment is unsupported_payment_method; a charge issued by another connector is validation_failed; the bank is not played', async () => {
      const { operations, scope, deps, simulatorsAsked, payments, pix } = await setup();
      (deps.connectors as unknown as { list: unknown[] }).list.push(account('ca_card', 50));
      const card = await new CreatePayment(deps).execute({ scope, amount: 500, card: { token: 'tok_ok', brand: 'visa', last4: '1111', expMonth: 12, expYear: 2030 } } as never);
      const cardRefusal = await refusal(operations.simulate({ scope, paymentId: card.id, outcome: 'paid' }));
      expect(cardRefusal.code).to.equal('unsupported_payment_method');
      const row = [...payments.rows.values()].find((p) => p.id === pix.id)!;
      row.connectorSlug = 'itau';
      const other = await refusal(operations.simulate({ scope, paymentId: pix.id, outcome: 'paid' }));
      expect(other).to.include({ code: 'validation_failed' });
      expect(other.meta.param).to.equal('path.id');
      expect(simulatorsAsked).to.deep.equal([]);
    });
  });
});
