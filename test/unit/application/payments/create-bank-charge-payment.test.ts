import { expect } from 'chai';
import { CreateBankChargePayment, type CreateBankChargePaymentCommand } from '../../../../application/payments/create-bank-charge-payment';
import { DomainError } from '../../../../domain/shared/domain-error';
import { bankChargeDeps, SteppingClock } from '../../../support/payment-fakes';

const NOW = new Date('2026-03-01T12:00:00.000Z');

/** Pix and boleto creation over fakes: the charge issued outside any transaction, the payment waiting for the bank. */
describe('CreateBankChargePayment', () => {
  const setup = async () => {
    const built = await bankChargeDeps(new SteppingClock(new Date(NOW)));
    const create = new CreateBankChargePayment(built.deps);
    const command = (overrides: Partial<CreateBankChargePaymentCommand> = {}): CreateBankChargePaymentCommand => ({
      scope: built.scope,
      amount: 12_345,
      methodType: 'pix',
      customerId: built.payerId,
      hasCard: false,
      hasPaymentMethodId: false,
      ...overrides,
    });
    return { ...built, create, command };
  };
  const refusal = async (work: Promise<unknown>) => {
    const error = await work.then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(DomainError);
    return error as DomainError;
  };

  it('a Pix is issued at the bank outside any transaction and waits in requires_action, first poll due a minute later', async () => {
    const { create, command, bank, waits, outbox, payments } = await setup();
    const payment = await create.execute(command({ pix: { expiresInSeconds: 600 } }), null);
    expect(payment).to.include({ status: 'requires_action', methodType: 'pix', connectorAccountId: 'ca_bank', capturedAmount: 0, latePayment: null });
    expect(payment.nextAction).to.include({ type: 'pix', qrCode: `00020101BR.GOV.BCB.PIX/${payment.acquirer.acquirerPaymentId}`, expiresAt: new Date(NOW.getTime() + 600_000).toISOString() });
    // the attempt id is the idempotency key: a re-sent creation after a crash finds the same charge
    expect(bank.calls).to.deep.equal([{ kind: 'create_pix', key: payment.attempts[0]!.id, insideTransaction: false }]);
    const wait = waits.rows.get(payment.id)!.wait;
    expect(wait).to.include({ kind: 'bank_notice' });
    expect(wait.dueAt!.toISOString()).to.equal(new Date(NOW.getTime() + 60_000).toISOString());
    expect(outbox.types()).to.deep.equal([]);
    expect(payments.rows.size).to.equal(1);
  });

  it('a boleto carries its line, barcode, due date and terms; without dueDate it is due in three days', async () => {
    const { create, command } = await setup();
    const payment = await create.execute(command({ methodType: 'boleto', boleto: { daysAfterDue: 2, fineBps: 200, interestMonthlyBps: 100, instructions: 'Não receber após o vencimento' } }), null);
    expect(payment.status).to.equal('requires_action');
    expect(payment.nextAction).to.include({ type: 'boleto', dueDate: '2026-03-04', daysAfterDue: 2, fineBps: 200, interestMonthlyBps: 100, instructions: 'Não receber após o vencimento' });
    expect(payment.nextAction).to.include({ digitableLine: '1'.repeat(47), barcode: '2'.repeat(44) });
  });

  it('refuses a non-BRL amount, splits, an unknown payer and a boleto due in the past before calling the bank or saving anything', async () => {
    const { create, command, bank, payments, waits } = await setup();
    const cases: Array<[Partial<CreateBankChargePaymentCommand>, string, string]> = [
      [{ currency: 'USD' }, 'validation_failed', 'body.currency'],
      [{ splits: [{ recipientId: 'rcp_1', type: 'percentage', value: 10 }] }, 'validation_failed', 'body.splits'],
      [{ customerId: 'cus_nobody' }, 'resource_missing', 'body.customerId'],
      [{ methodType: 'boleto', boleto: { dueDate: '2026-02-28' } }, 'validation_failed', 'body.boleto.dueDate'],
    ];
    for (const [overrides, code, param] of cases) {
      const error = await refusal(create.execute(command(overrides), null));
      expect(error.code, JSON.stringify(overrides)).to.equal(code);
      expect(error.meta.param, JSON.stringify(overrides)).to.equal(param);
    }
    expect(bank.calls).to.deep.equal([]);
    expect(payments.rows.size).to.equal(0);
    expect(waits.rows.size).to.equal(0);
  });

  it('a Pix without a payer is refused by the method rules (a name and a valid CPF/CNPJ are needed)', async () => {
    const { create, command, bank, payments } = await setup();
    const error = await refusal(create.execute(command({ customerId: undefined }), null));
    expect(error.code).to.equal('validation_failed');
    expect(bank.calls).to.deep.equal([]);
    expect(payments.rows.size).to.equal(0);
  });
});
