import { brazilianDocumentType } from '../../shared/brazilian-document';
import type { MethodRequest } from './payment-method';
import { refuse } from './method-refusal';

/**
 * Pix and boleto name their payer (spec, creation rule 2): a customer with a name and a valid CPF or CNPJ. Card-only
 * fields make no sense on a bank charge.
 */
export function checkBankChargePayer(request: MethodRequest, method: 'pix' | 'boleto'): void {
  if (request.hasCard || request.hasPaymentMethodId) refuse(request.hasCard ? 'body.card' : 'body.paymentMethodId', `A ${method} payment takes no card.`);
  if (request.installments !== 1) refuse('body.installments', `A ${method} payment has a single installment.`);
  if (request.captureMethod !== 'automatic') refuse('body.captureMethod', `A ${method} payment is captured when the bank confirms it; captureMethod manual does not apply.`);
  const customer = request.customer;
  if (!customer) refuse('body.customerId', `A ${method} payment needs customerId: a customer with a name and a valid CPF or CNPJ.`);
  if (!customer.name.trim()) refuse('body.customerId', `The ${method} payer (the customer) needs a name.`);
  if (!customer.document || !brazilianDocumentType(customer.document)) refuse('body.customerId', `The ${method} payer (the customer) needs a valid CPF or CNPJ as document.`);
}
