import { expect } from 'chai';
import { MAX_CHARGES_PER_NOTICE, ReceiveBankNotice, citedCharges } from '../../../../application/payments/receive-bank-notice';
import { CheckBankCharges } from '../../../../application/payments/check-bank-charges';
import { CreateBankChargePayment } from '../../../../application/payments/create-bank-charge-payment';
import type { BankChargePayments } from '../../../../domain/ports/bank-charge-payments';
import type { ConnectorAccountDirectory } from '../../../../domain/ports/connector-account-directory';
import { NotFoundError } from '../../../../domain/shared/domain-error';
import { bankChargeDeps, SteppingClock } from '../../../support/payment-fakes';

/** What an inbound Pix or boleto notice is read for: only the charges it cites (its claims are checked with the bank). */
describe('citedCharges (inbound bank notices)', () => {
  it('reads one charge or a list of charges, ignoring what they claim', () => {
    expect(citedCharges({ acquirerPaymentId: 'sbxpix_1', status: 'paid' })).to.deep.equal(['sbxpix_1']);
    expect(citedCharges({ charges: [{ acquirerPaymentId: 'a' }, { acquirerPaymentId: 'b', paidAmount: 1 }] })).to.deep.equal(['a', 'b']);
  });

  it('cites nothing for a body of another shape, empty or oversized ids', () => {
    for (const body of [null, 'text', 42, [], {}, { charges: 'a' }, { charges: [1, null, { id: 'x' }] }, { acquirerPaymentId: '' }, { acquirerPaymentId: 'x'.repeat(129) }]) {
      expect(citedCharges(body), JSON.stringify(body)).to.deep.equal([]);
    }
  });

  it('a notice is checked for at most MAX_CHARGES_PER_NOTICE charges (polling finds the rest)', () => {
    expect(MAX_CHARGES_PER_NOTICE).to.equal(100);
  });
});

/**
 * ReceiveBankNotice over fakes: the account is found by its id and webhook token (else not_found), the cited charges
 * are matched to the account's payments, and each is checked by asking the bank after the answer: a notice's claim
 * pays nothing by itself.
 */
describe('ReceiveBankNotice', () => {
  const setup = async () => {
    const built = await bankChargeDeps(new SteppingClock(new Date('2026-03-01T12:00:00.000Z')));
    const create = new CreateBankChargePayment(built.deps);
    const pixOf = () =>
      create.execute({ scope: built.scope, amount: 12_345, methodType: 'pix', customerId: built.payerId, hasCard: false, hasPaymentMethodId: false }, null);
    const [first, second] = [await pixOf(), await pixOf()];
    const opened = await built.deps.connectors.open(built.scope, 'ca_bank');
    const directory = {
      findByWebhookToken: async (accountId: string, token: string) => (accountId === 'ca_bank' && token === 'right-token' ? { ...opened!, scope: built.scope } : null),
    } as unknown as Pick<ConnectorAccountDirectory, 'findByWebhookToken'>;
    // the payments of charges issued at the account, as the SQL lookup finds them
    const byCharge: BankChargePayments = {
      findByCharge: async (_tx, scope, accountId, acquirerPaymentId) =>
        [...built.payments.rows.values()].find((p) => p.organizationId === scope.organizationId && p.connectorAccountId === accountId && p.acquirer.acquirerPaymentId === acquirerPaymentId)?.id ?? null,
    };
    const checks = new CheckBankCharges(built.deps, { owner: 'web' });
    const failures: string[] = [];
    const notices = new ReceiveBankNotice(built.deps, directory, byCharge, checks, (_error, paymentId) => failures.push(paymentId));
    const statusOf = async (id: string) => (await built.deps.payments.find({} as never, built.scope, id))!.view().status;
    return { ...built, notices, first, second, failures, statusOf, checks };
  };

  it('a wrong token or another account is not_found, and nothing is checked', async () => {
    const { notices, first, bank } = await setup();
    const body = { acquirerPaymentId: first.acquirer.acquirerPaymentId };
    for (const input of [{ accountId: 'ca_bank', token: 'wrong' }, { accountId: 'ca_other', token: 'right-token' }]) {
      const error = await notices.execute({ ...input, body }).then(() => null, (e: unknown) => e);
      expect(error).to.be.instanceOf(NotFoundError);
    }
    expect(bank.callsOf('query')).to.deep.equal([]);
  });

  it('a forged notice (the bank was not paid) is received and pays nothing', async () => {
    const { notices, first, statusOf, outbox } = await setup();
    const received = await notices.execute({ accountId: 'ca_bank', token: 'right-token', body: { acquirerPaymentId: first.acquirer.acquirerPaymentId, status: 'paid' } });
    expect(received.charges).to.equal(1);
    await received.checked;
    expect(await statusOf(first.id)).to.equal('requires_action');
    expect(outbox.types()).to.deep.equal([]);
  });

  it('each cited charge of the account is checked once with the bank: the paid one captured; unknown charges are ignored', async () => {
    const { notices, first, second, bank, statusOf, outbox } = await setup();
    bank.pay(second.acquirer.acquirerPaymentId!);
    const charges = [first, second, first].map((p) => ({ acquirerPaymentId: p.acquirer.acquirerPaymentId })).concat({ acquirerPaymentId: 'chg_elsewhere' });
    const received = await notices.execute({ accountId: 'ca_bank', token: 'right-token', body: { charges } });
    expect(received.charges).to.equal(2);
    await received.checked;
    expect(bank.callsOf('query')).to.deep.equal([first.acquirer.acquirerPaymentId, second.acquirer.acquirerPaymentId]);
    expect([await statusOf(first.id), await statusOf(second.id)]).to.deep.equal(['requires_action', 'captured']);
    expect(outbox.types()).to.deep.equal(['payment.captured']);
  });

  it('a notice for a payment that lapsed unpaid, which the bank then reports paid, records the late payment', async () => {
    const { notices, first, bank, statusOf, outbox, deps, scope } = await setup();
    const charge = first.acquirer.acquirerPaymentId!;
    bank.lapse(charge);
    await new CheckBankCharges(deps, { owner: 'poller' }).check(scope, first.id);
    bank.charges.get(charge)!.status = 'paid';
    await (await notices.execute({ accountId: 'ca_bank', token: 'right-token', body: { acquirerPaymentId: charge } })).checked;
    expect(await statusOf(first.id)).to.equal('canceled');
    expect(outbox.types()).to.deep.equal(['payment.canceled', 'payment.late_payment_received']);
  });

  it('one failed check is reported and does not stop the others', async () => {
    const { notices, first, second, bank, failures, statusOf, checks } = await setup();
    bank.pay(second.acquirer.acquirerPaymentId!);
    const check = checks.check.bind(checks);
    checks.check = async (scope, paymentId) => (paymentId === first.id ? Promise.reject(new Error('database went away')) : check(scope, paymentId));
    const body = { charges: [first, second].map((p) => ({ acquirerPaymentId: p.acquirer.acquirerPaymentId })) };
    await (await notices.execute({ accountId: 'ca_bank', token: 'right-token', body })).checked;
    expect(failures).to.deep.equal([first.id]);
    expect(await statusOf(second.id)).to.equal('captured');
  });
});
