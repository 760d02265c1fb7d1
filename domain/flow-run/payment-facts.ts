/**
 * What a payment's flow run looks at, read from the payment itself: routing's flat projection and the facts that
 * conditions and switches test. Derived from the stored payment alone, so a run resumed after a restart sees
 * exactly what it saw when it started.
 */
import type { FlowPaymentFacts } from '../flow/flow-rules';
import type { PaymentPrimitives } from '../payment/payment.primitives';
import type { RoutingPaymentProjection } from '../payment/routing/direct-routing';
import type { DeepReadonly } from '../shared/deep-readonly';

export function routingProjectionOf(p: DeepReadonly<PaymentPrimitives>): RoutingPaymentProjection {
  return {
    methodType: p.methodType,
    amount: p.amount,
    currency: p.currency,
    installments: p.installments,
    hasSplits: p.splits.length > 0,
    pinnedConnectorAccountId: p.pinnedConnectorAccountId ?? null,
  };
}

export function flowFactsOf(p: DeepReadonly<PaymentPrimitives>): FlowPaymentFacts {
  return {
    amount: p.amount,
    currency: p.currency,
    installments: p.installments,
    methodType: p.methodType,
    captureMethod: p.captureMethod,
    initiator: p.initiator,
    hasSplits: p.splits.length > 0,
    customerId: p.customerId,
    cardBrand: p.card?.brand ?? null,
    cardBin: p.card?.bin ?? null,
    metadata: p.metadata,
  };
}
