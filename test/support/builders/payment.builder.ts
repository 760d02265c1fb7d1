import { CreateCardPaymentInput, Payment, PaymentPrimitives } from '../../../domain/payment/payment';

export const T0 = new Date('2026-03-01T12:00:00.000Z');

export function cardPaymentInput(overrides: Partial<CreateCardPaymentInput> = {}): CreateCardPaymentInput {
  return {
    id: 'pay_01TEST',
    organizationId: 'org_1',
    environment: 'sandbox',
    amount: 10_000,
    currency: 'BRL',
    captureMethod: 'automatic',
    card: { brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030, holderName: 'ANA SILVA' },
    now: T0,
    ...overrides,
  };
}

/** A card payment in processing, with nothing recorded yet. */
export function processingPayment(overrides: Partial<CreateCardPaymentInput> = {}): Payment {
  return Payment.createCard(cardPaymentInput(overrides));
}

const APPROVAL = { connectorAccountId: 'ca_1', connectorSlug: 'sandbox', references: { nsu: '123456', tid: 'TID1', authorizationCode: 'A1B2C3' } };

/** A manual-capture payment the acquirer authorized; events already pulled. */
export function authorizedPayment(overrides: Partial<CreateCardPaymentInput> = {}, fraudReview = false): Payment {
  const p = processingPayment({ captureMethod: 'manual', ...overrides });
  p.approve({ ...APPROVAL, fraudReview, now: T0 });
  p.pullEvents();
  return p;
}

/** An automatically captured payment; events already pulled. */
export function capturedPayment(overrides: Partial<CreateCardPaymentInput> = {}): Payment {
  const p = processingPayment({ captureMethod: 'automatic', ...overrides });
  p.approve({ ...APPROVAL, now: T0 });
  p.pullEvents();
  return p;
}

export function withPrimitives(payment: Payment, patch: Partial<PaymentPrimitives>): Payment {
  return Payment.fromPrimitives({ ...payment.toPrimitives(), ...patch });
}

export { APPROVAL };
