import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from './payment-deps';
import { runMoneyOperation } from './money-operation';
import { voidPlan } from './money-operation-plans';
import type { PaymentObject } from './payment-object';

/** Voids an authorized, uncaptured card payment on the connector that authorized it: emits payment.voided. */
export class VoidPayment {
  constructor(private readonly deps: PaymentDeps) {}

  execute(input: { scope: TenantScope; paymentId: string; reason?: string; idempotencyKey?: string }): Promise<PaymentObject> {
    const request = input.reason === undefined ? {} : { reason: input.reason };
    return runMoneyOperation(this.deps, input.scope, input.paymentId, voidPlan(request), input.idempotencyKey);
  }
}
