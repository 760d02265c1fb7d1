import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from './payment-deps';
import { runMoneyOperation } from './money-operation';
import type { PaymentObject } from './payment-object';

/** Voids an authorized, uncaptured card payment on the connector that authorized it: emits payment.voided. */
export class VoidPayment {
  constructor(private readonly deps: PaymentDeps) {}

  execute(input: { scope: TenantScope; paymentId: string; reason?: string }): Promise<PaymentObject> {
    return runMoneyOperation<'void' | 'cancel'>(this.deps, input.scope, input.paymentId, {
      check: (payment) => payment.assertVoidable(),
      intent: () => ({ kind: 'void', amount: null }),
      needsAcquirer: (kind) => kind === 'void',
      call: (_kind, ctx) => ctx.gateway.void({ credentials: ctx.credentials, idempotencyKey: ctx.operationId, acquirerPaymentId: ctx.acquirerPaymentId }),
      apply: (payment, _kind, ctx) => {
        payment.void({ operationId: ctx.operationId, reason: input.reason ?? null, now: ctx.now, acquirerReference: ctx.acquirerReference });
      },
    });
  }
}
