import type { OperationIntent, OperationRequest } from '../../domain/ports/payment-repositories';
import type { MoneyOperationPlan } from './money-operation';

/** Full or partial capture of a manual-capture authorization (partial releases the rest): payment.captured. */
export function capturePlan(request: OperationRequest): MoneyOperationPlan<number> {
  return {
    kind: 'capture',
    request,
    check: (payment, requestedAt) => payment.assertCapturable(request.amount, requestedAt),
    intent: (amount) => ({ kind: 'capture', amount }),
    needsAcquirer: () => true,
    call: (amount, ctx) => ctx.gateway.capture({ credentials: ctx.credentials, idempotencyKey: ctx.operationId, acquirerPaymentId: ctx.acquirerPaymentId, amount }),
    apply: (payment, amount, ctx) => {
      payment.capture({ operationId: ctx.operationId, amount, now: ctx.now, requestedAt: ctx.requestedAt, acquirerReference: ctx.acquirerReference, idempotencyKeys: ctx.idempotencyKeys });
    },
  };
}

/** Voids an authorized, uncaptured card payment on the connector that authorized it: payment.voided. */
export function voidPlan(request: OperationRequest): MoneyOperationPlan<'void' | 'cancel'> {
  return {
    kind: 'void',
    request,
    check: (payment) => payment.assertVoidable(),
    intent: () => ({ kind: 'void', amount: null }),
    needsAcquirer: (kind) => kind === 'void',
    call: (_kind, ctx) => ctx.gateway.void({ credentials: ctx.credentials, idempotencyKey: ctx.operationId, acquirerPaymentId: ctx.acquirerPaymentId }),
    apply: (payment, _kind, ctx) => {
      payment.void({ operationId: ctx.operationId, reason: request.reason ?? null, now: ctx.now, acquirerReference: ctx.acquirerReference, idempotencyKeys: ctx.idempotencyKeys });
    },
  };
}

/** Partial or full refund up to the captured amount: payment.partially_refunded or payment.refunded. */
export function refundPlan(request: OperationRequest): MoneyOperationPlan<number> {
  return {
    kind: 'refund',
    request,
    check: (payment) => payment.assertRefundable(request.amount),
    intent: (amount) => ({ kind: 'refund', amount }),
    needsAcquirer: () => true,
    call: (amount, ctx) => ctx.gateway.refund({ credentials: ctx.credentials, idempotencyKey: ctx.operationId, acquirerPaymentId: ctx.acquirerPaymentId, amount }),
    apply: (payment, amount, ctx) => {
      payment.refund({
        operationId: ctx.operationId,
        amount,
        reason: request.reason ?? null,
        metadata: request.metadata ?? {},
        now: ctx.now,
        acquirerReference: ctx.acquirerReference,
        idempotencyKeys: ctx.idempotencyKeys,
      });
    },
  };
}

/**
 * The plan that repeats a pending operation as it was first requested. Intents saved before the request was kept
 * repeat its kind and amount.
 */
export function planForIntent(intent: OperationIntent): MoneyOperationPlan<unknown> {
  const request: OperationRequest = intent.request ?? (intent.amount === null ? {} : { amount: intent.amount });
  const plans = { capture: capturePlan, void: voidPlan, refund: refundPlan } as const;
  return plans[intent.kind](request) as MoneyOperationPlan<unknown>;
}
