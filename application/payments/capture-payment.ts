import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from './payment-deps';
import { runMoneyOperation } from './money-operation';
import { capturePlan } from './money-operation-plans';
import type { PaymentObject } from './payment-object';

/** Full or partial capture of a manual-capture authorization (partial releases the rest): emits payment.captured. */
export class CapturePayment {
  constructor(private readonly deps: PaymentDeps) {}

  execute(input: { scope: TenantScope; paymentId: string; amount?: number; idempotencyKey?: string }): Promise<PaymentObject> {
    const request = input.amount === undefined ? {} : { amount: input.amount };
    return runMoneyOperation(this.deps, input.scope, input.paymentId, capturePlan(request), input.idempotencyKey);
  }
}
