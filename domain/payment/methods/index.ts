import type { MethodType } from '../payment.primitives';
import { boletoMethod } from './boleto';
import { cardMethod } from './card';
import { debitCardMethod } from './debit-card';
import type { PaymentMethodRules } from './payment-method';
import { pixMethod } from './pix';

export type { AcquirerCallKind, MethodCustomer, MethodRequest, MethodStart, PaymentMethodRules } from './payment-method';

/** One module per method; the record is exhaustive, so a new method type without its rules does not compile. */
const METHODS: Record<MethodType, PaymentMethodRules> = {
  card: cardMethod,
  debit_card: debitCardMethod,
  pix: pixMethod,
  boleto: boletoMethod,
};

export function paymentMethod(methodType: MethodType): PaymentMethodRules {
  return METHODS[methodType];
}
