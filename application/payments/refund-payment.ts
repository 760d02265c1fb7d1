import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from './payment-deps';
import { runMoneyOperation } from './money-operation';
import { refundPlan } from './money-operation-plans';
import type { PaymentObject } from './payment-object';

/** Partial or full refund up to the captured amount: payment.partially_refunded or payment.refunded. */
export class RefundPayment {
  constructor(private readonly deps: PaymentDeps) {}

  execute(input: { scope: TenantScope; paymentId: string; amount?: number; reason?: string; metadata?: Record<string, unknown>; idempotencyKey?: string }): Promise<PaymentObject> {
    const request = {
      ...(input.amount === undefined ? {} : { amount: input.amount }),
      ...(input.reason === undefined ? {} : { reason: input.reason }),
      ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
    };
    return runMoneyOperation(this.deps, input.scope, input.paymentId, refundPlan(request), input.idempotencyKey);
  }
}
