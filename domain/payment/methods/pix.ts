/** Pix (spec, creation rule 2): a charge issued for the payer (BR Code), captured when the bank confirms it. */
import { checkBankChargePayer } from './bank-charge-payer';
import type { PaymentMethodRules } from './payment-method';
import { refuse } from './method-refusal';

export const pixMethod: PaymentMethodRules = {
  methodType: 'pix',
  acquirerCall: 'create_pix_charge',
  start(request) {
    checkBankChargePayer(request, 'pix');
    if (request.hasBoletoOptions) refuse('body.boleto', 'boleto options apply to methodType boleto only.');
    return 'issue_charge';
  },
};
