import { expect } from 'chai';
import { DomainError } from '../../../../domain/shared/domain-error';
import { T0, processingPayment } from '../../../support/builders/payment.builder';

const later = (ms: number) => new Date(T0.getTime() + ms);
const pixCharge = { type: 'pix' as const, qrCode: '000201...6304ABCD', expiresAt: later(3_600_000).toISOString() };

/** A Pix payment whose charge was issued: requires_action, events pulled. */
function openPix() {
  const payment = processingPayment({ methodType: 'pix', card: null });
  payment.issueBankCharge({ charge: pixCharge, connectorAccountId: 'ca_1', connectorSlug: 'sandbox', acquirerPaymentId: 'sbxpix_1', now: T0 });
  payment.pullEvents();
  return payment;
}

describe('Payment: Pix and boleto charges (payment-bank-charge.ts)', () => {
  it('an issued charge makes the payment requires_action with the charge and the account that issued it, no event', () => {
    const payment = processingPayment({ methodType: 'pix', card: null });
    payment.issueBankCharge({ charge: pixCharge, connectorAccountId: 'ca_1', connectorSlug: 'sandbox', acquirerPaymentId: 'sbxpix_1', now: T0 });
    const p = payment.view();
    expect(p.status).to.equal('requires_action');
    expect(p.bankCharge).to.deep.equal(pixCharge);
    expect(p.acquirer.acquirerPaymentId).to.equal('sbxpix_1');
    expect(payment.pullEvents()).to.deep.equal([]);
  });

  it('the bank confirming captures the whole amount with payment.captured; a lapse cancels with payment.canceled', () => {
    const paid = openPix();
    paid.confirmBankPayment({ paidAmount: 10_000, now: later(60_000) });
    expect(paid.view()).to.include({ status: 'captured', capturedAmount: 10_000 });
    expect(paid.pullEvents().map((e) => e.type)).to.deep.equal(['payment.captured']);
    const lapsed = openPix();
    lapsed.expireBankCharge({ now: later(3_600_001) });
    expect(lapsed.status).to.equal('canceled');
    expect(lapsed.pullEvents().map((e) => e.type)).to.deep.equal(['payment.canceled']);
  });

  it('money reported after the payment was canceled is recorded once with payment.late_payment_received; the status stays', () => {
    const payment = openPix();
    payment.expireBankCharge({ now: later(3_600_001) });
    payment.pullEvents();
    expect(payment.recordLatePayment({ amount: 10_000, paidAt: later(3_700_000).toISOString(), now: later(3_800_000) })).to.equal(true);
    expect(payment.view().latePayment).to.deep.equal({ amount: 10_000, paidAt: later(3_700_000).toISOString(), recordedAt: later(3_800_000).toISOString() });
    const [event] = payment.pullEvents();
    expect(event!.type).to.equal('payment.late_payment_received');
    expect(event!.payment.status).to.equal('canceled');
    expect(payment.recordLatePayment({ amount: 10_000, paidAt: null, now: later(3_900_000) })).to.equal(false);
    expect(payment.pullEvents()).to.deep.equal([]);
  });

  it('a card payment has no bank charge: the bank-charge moves are refused with invalid_state', () => {
    const card = processingPayment();
    expect(() => card.issueBankCharge({ charge: pixCharge, connectorAccountId: 'ca_1', connectorSlug: 'sandbox', acquirerPaymentId: 'x', now: T0 })).to.throw(DomainError, /not a Pix or boleto/);
    const open = openPix();
    expect(open.recordLatePayment({ amount: 1, paidAt: null, now: T0 })).to.equal(false); // not ended: the run captures it instead
  });
});
