import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from './payment-deps';
import { runMoneyOperation } from './money-operation';
import type { PaymentObject } from './payment-object';

/** Partial or full refund up to the captured amount: payment.partially_refunded or payment.refunded. */
export class RefundPayment {
  constructor(private readonly deps: PaymentDeps) {}

  execute(input: { scope: TenantScope; paymentId: string; amount?: number; reason?: string; metadata?: Record<string, unknown> }): Promise<PaymentObject> {
    return runMoneyOperation<number>(this.deps, input.scope, input.paymentId, {
      check: (payment) => payment.assertRefundable(input.amount),
      intent: (amount) => ({ kind: 'refund', amount }),
      needsAcquirer: () => true,
      call: (amount, ctx) => ctx.gateway.refund({ credentials: ctx.credentials, idempotencyKey: ctx.operationId, acquirerPaymentId: ctx.acquirerPaymentId, amount }),
      apply: (payment, amount, ctx) => {
        payment.refund({ operationId: ctx.operationId, amount, reason: input.reason ?? null, metadata: input.metadata ?? {}, now: ctx.now, acquirerReference: ctx.acquirerReference });
      },
    });
  }
}
