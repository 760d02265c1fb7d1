/**
 * Boleto (spec, creation rule 2): a bank slip issued for the payer, who must have a name, a valid CPF or CNPJ and a
 * full address (registered with the slip); captured when the bank confirms payment.
 */
import { checkBankChargePayer } from './bank-charge-payer';
import type { PaymentMethodRules } from './payment-method';
import { refuse } from './method-refusal';

export const boletoMethod: PaymentMethodRules = {
  methodType: 'boleto',
  acquirerCall: 'create_boleto',
  start(request) {
    checkBankChargePayer(request, 'boleto');
    if (request.hasPixOptions) refuse('body.pix', 'pix options apply to methodType pix only.');
    const address = request.customer?.address;
    const missing = address ? (['postalCode', 'line1', 'streetNumber', 'neighborhood', 'city', 'state'] as const).filter((field) => !address[field]?.trim()) : ['address'];
    if (missing.length > 0) refuse('body.customerId', `The boleto payer (the customer) needs a full address; missing: ${missing.join(', ')}.`);
    return 'issue_charge';
  },
};
