/**
 * Pix and boleto: a charge issued at the bank for the payer to pay, and what the bank says about it afterwards.
 * The payment waits in requires_action with the charge (QR code or digitable line) until the bank confirms it paid
 * (captured), lets it lapse (canceled), or the merchant voids it (canceled, the charge removed at the bank). Money the
 * bank reports after the payment ended is never dropped: it is kept as a late payment and told to the merchant.
 */
import { DomainError } from '../shared/domain-error';
import type { PaymentInternals } from './payment-internals';
import type { PaymentPrimitives } from './payment.primitives';
import type { BankCharge } from './bank-charge';
import { cloneJson } from '../shared/clone-json';

export interface IssueBankChargeInput {
  readonly charge: BankCharge;
  readonly connectorAccountId: string;
  readonly connectorSlug: string;
  readonly acquirerPaymentId: string;
  readonly now: Date;
}

/** The charge was issued: the payment now waits for the payer (requires_action, with the charge as nextAction). */
export function issueBankCharge(payment: PaymentInternals, input: IssueBankChargeInput): void {
  assertBankMethod(payment.state);
  payment.change('issue_bank_charge', input.now, (s) => {
    s.bankCharge = { ...input.charge };
    s.connectorAccountId = input.connectorAccountId;
    s.connectorSlug = input.connectorSlug;
    s.acquirer = { nsu: null, tid: null, authorizationCode: null, acquirerPaymentId: input.acquirerPaymentId };
  });
}

/** The bank confirmed the payment (a checked notice, a poll, or a simulation): captured, payment.captured. */
export function confirmBankPayment(payment: PaymentInternals, input: { readonly paidAmount: number; readonly now: Date }): void {
  assertBankMethod(payment.state);
  payment.change('bank_confirm_paid', input.now, (s) => {
    // A Pix or boleto is paid whole; the bank's amount is kept only if it says otherwise (never more than asked).
    s.capturedAmount = input.paidAmount > 0 ? Math.min(input.paidAmount, s.amount) : s.amount;
    s.routingStopReason = 'approved';
  });
  payment.record('payment.captured');
}

/** The charge lapsed unpaid (its expiry, or the bank said so): canceled, payment.canceled. */
export function expireBankCharge(payment: PaymentInternals, input: { readonly now: Date }): void {
  assertBankMethod(payment.state);
  payment.change('expire', input.now, (s) => {
    s.routingStopReason = 'expired';
  });
  payment.record('payment.canceled');
}

/**
 * The bank reports paid a charge of a payment that already ended unpaid (voided or expired): recorded once, with
 * payment.late_payment_received, so the merchant returns the money or delivers; the status does not change.
 */
export function recordLatePayment(payment: PaymentInternals, input: { readonly amount: number; readonly paidAt: string | null; readonly now: Date }): boolean {
  assertBankMethod(payment.state);
  if (payment.state.status !== 'canceled' || payment.state.latePayment) return false;
  const before = cloneJson(payment.state);
  payment.state.latePayment = { amount: input.amount > 0 ? input.amount : payment.state.amount, paidAt: input.paidAt, recordedAt: input.now.toISOString() };
  payment.state.updatedAt = input.now.toISOString();
  payment.record('payment.late_payment_received', before);
  return true;
}

function assertBankMethod(state: PaymentPrimitives): void {
  if (state.methodType !== 'pix' && state.methodType !== 'boleto') {
    throw new DomainError('invalid_state', `Payment ${state.id} is a ${state.methodType} payment, not a Pix or boleto charge.`);
  }
}
