import { expect } from 'chai';
import { paymentMethod, type MethodRequest } from '../../../../../domain/payment/methods';
import { METHOD_TYPES } from '../../../../../domain/payment/payment';
import { DomainError } from '../../../../../domain/shared/domain-error';

const ADDRESS = { postalCode: '01310100', line1: 'Av. Paulista', streetNumber: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' };
// 529.982.247-25: a CPF whose check digits are right.
const PAYER = { name: 'Maria Silva', document: '52998224725', address: ADDRESS };

function request(overrides: Partial<MethodRequest> = {}): MethodRequest {
  return {
    methodType: 'card',
    hasCard: true,
    hasPaymentMethodId: false,
    captureMethod: 'automatic',
    installments: 1,
    initiator: 'customer',
    customer: null,
    hasPixOptions: false,
    hasBoletoOptions: false,
    ...overrides,
  };
}

/** The param of the validation_failed the method answers, or the start it allows. */
function outcome(r: MethodRequest): string {
  try {
    return `start:${paymentMethod(r.methodType).start(r)}`;
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    expect((error as DomainError).code).to.equal('validation_failed');
    return `refused:${(error as DomainError).meta.param}`;
  }
}

describe('payment methods: what each method takes and how it starts', () => {
  it('every method type has its rules and the acquirer call its nodes make', () => {
    const calls = Object.fromEntries(METHOD_TYPES.map((m) => [m, paymentMethod(m).acquirerCall]));
    expect(calls).to.deep.equal({ card: 'authorize', debit_card: 'authorize', pix: 'create_pix_charge', boleto: 'create_boleto' });
  });

  const cases: Array<{ name: string; request: Partial<MethodRequest>; expected: string }> = [
    { name: 'card with a token is authorized at once', request: {}, expected: 'start:authorize' },
    { name: 'card with a saved card is authorized at once', request: { hasCard: false, hasPaymentMethodId: true }, expected: 'start:authorize' },
    { name: 'card without either is the transparent checkout', request: { hasCard: false }, expected: 'start:checkout' },
    { name: 'card with both is refused', request: { hasPaymentMethodId: true }, expected: 'refused:body.card' },
    { name: 'card with pix options is refused', request: { hasPixOptions: true }, expected: 'refused:body.pix' },
    { name: 'debit card in the checkout', request: { methodType: 'debit_card', hasCard: false }, expected: 'start:checkout' },
    { name: 'debit card with a card token is refused (checkout only)', request: { methodType: 'debit_card' }, expected: 'refused:body.card' },
    { name: 'debit card with a saved card is refused', request: { methodType: 'debit_card', hasCard: false, hasPaymentMethodId: true }, expected: 'refused:body.paymentMethodId' },
    { name: 'debit card in installments is refused', request: { methodType: 'debit_card', hasCard: false, installments: 3 }, expected: 'refused:body.installments' },
    { name: 'debit card with manual capture is refused', request: { methodType: 'debit_card', hasCard: false, captureMethod: 'manual' }, expected: 'refused:body.captureMethod' },
    { name: 'debit card without the customer present is refused', request: { methodType: 'debit_card', hasCard: false, initiator: 'merchant' }, expected: 'refused:body.initiator' },
    { name: 'pix with a payer is a charge issued', request: { methodType: 'pix', hasCard: false, customer: PAYER, hasPixOptions: true }, expected: 'start:issue_charge' },
    { name: 'pix without a customer is refused', request: { methodType: 'pix', hasCard: false }, expected: 'refused:body.customerId' },
    { name: 'pix whose payer has no document is refused', request: { methodType: 'pix', hasCard: false, customer: { ...PAYER, document: null } }, expected: 'refused:body.customerId' },
    { name: 'pix whose payer has an invalid CPF is refused', request: { methodType: 'pix', hasCard: false, customer: { ...PAYER, document: '52998224724' } }, expected: 'refused:body.customerId' },
    { name: 'pix with a card is refused', request: { methodType: 'pix', customer: PAYER }, expected: 'refused:body.card' },
    { name: 'pix with boleto options is refused', request: { methodType: 'pix', hasCard: false, customer: PAYER, hasBoletoOptions: true }, expected: 'refused:body.boleto' },
    { name: 'pix with manual capture is refused', request: { methodType: 'pix', hasCard: false, customer: PAYER, captureMethod: 'manual' }, expected: 'refused:body.captureMethod' },
    { name: 'boleto with a payer and a full address', request: { methodType: 'boleto', hasCard: false, customer: PAYER, hasBoletoOptions: true }, expected: 'start:issue_charge' },
    { name: 'boleto whose payer has no address is refused', request: { methodType: 'boleto', hasCard: false, customer: { ...PAYER, address: null } }, expected: 'refused:body.customerId' },
    { name: 'boleto whose payer address lacks the city is refused', request: { methodType: 'boleto', hasCard: false, customer: { ...PAYER, address: { ...ADDRESS, city: ' ' } } }, expected: 'refused:body.customerId' },
    { name: 'boleto with a CNPJ payer', request: { methodType: 'boleto', hasCard: false, customer: { ...PAYER, document: '11222333000181' } }, expected: 'start:issue_charge' },
  ];
  for (const c of cases) {
    it(`${c.name} -> ${c.expected}`, () => {
      expect(outcome(request(c.request))).to.equal(c.expected);
    });
  }
});
