import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from './payment-deps';
import { runMoneyOperation } from './money-operation';
import type { PaymentObject } from './payment-object';

/** Full or partial capture of a manual-capture authorization (partial releases the rest): emits payment.captured. */
export class CapturePayment {
  constructor(private readonly deps: PaymentDeps) {}

  execute(input: { scope: TenantScope; paymentId: string; amount?: number }): Promise<PaymentObject> {
    return runMoneyOperation<number>(this.deps, input.scope, input.paymentId, {
      check: (payment, requestedAt) => payment.assertCapturable(input.amount, requestedAt),
      intent: (amount) => ({ kind: 'capture', amount }),
      needsAcquirer: () => true,
      call: (amount, ctx) => ctx.gateway.capture({ credentials: ctx.credentials, idempotencyKey: ctx.operationId, acquirerPaymentId: ctx.acquirerPaymentId, amount }),
      apply: (payment, amount, ctx) => {
        payment.capture({ operationId: ctx.operationId, amount, now: ctx.now, requestedAt: ctx.requestedAt, acquirerReference: ctx.acquirerReference });
      },
    });
  }
}
