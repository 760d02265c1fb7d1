/**
 * Credit card (spec, creation rules 3 and 6): a vault token (card.token) or a saved card (paymentMethodId) is sent
 * for authorization at once; without either it is the transparent checkout, the buyer's browser brings the card.
 */
import type { PaymentMethodRules } from './payment-method';
import { refuse } from './method-refusal';

export const cardMethod: PaymentMethodRules = {
  methodType: 'card',
  acquirerCall: 'authorize',
  start(request) {
    if (request.hasPixOptions) refuse('body.pix', 'pix options apply to methodType pix only.');
    if (request.hasBoletoOptions) refuse('body.boleto', 'boleto options apply to methodType boleto only.');
    if (request.hasCard && request.hasPaymentMethodId) refuse('body.card', 'Send either card or paymentMethodId, not both.');
    return request.hasCard || request.hasPaymentMethodId ? 'authorize' : 'checkout';
  },
};
