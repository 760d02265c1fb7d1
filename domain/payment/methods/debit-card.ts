/**
 * Debit card (spec, creation rule 5): only in the transparent checkout (no card, no paymentMethodId), single
 * installment, automatic capture, customer present; charged only after the cardholder authenticates (3DS), so it
 * needs a published flow with a three_ds node, which the checkout's confirmation checks.
 */
import type { PaymentMethodRules } from './payment-method';
import { refuse } from './method-refusal';

export const debitCardMethod: PaymentMethodRules = {
  methodType: 'debit_card',
  acquirerCall: 'authorize',
  start(request) {
    if (request.hasCard || request.hasPaymentMethodId) refuse(request.hasCard ? 'body.card' : 'body.paymentMethodId', 'A debit card payment is taken in the transparent checkout only: send neither card nor paymentMethodId.');
    if (request.installments !== 1) refuse('body.installments', 'A debit card payment has a single installment.');
    if (request.captureMethod !== 'automatic') refuse('body.captureMethod', 'A debit card payment is captured automatically.');
    if (request.initiator !== 'customer') refuse('body.initiator', 'A debit card payment needs the customer present (initiator customer).');
    if (request.hasPixOptions) refuse('body.pix', 'pix options apply to methodType pix only.');
    if (request.hasBoletoOptions) refuse('body.boleto', 'boleto options apply to methodType boleto only.');
    return 'checkout';
  },
};
