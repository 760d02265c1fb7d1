import type { SubscriptionPrimitives } from '../../domain/subscription/subscription';

/** The public subscription (contract.md 4; fields beyond the contract's are docs/subscriptions.md's). */
export function subscriptionObject(s: SubscriptionPrimitives) {
  return {
    object: 'subscription' as const,
    id: s.id,
    status: s.status,
    customerId: s.customerId,
    paymentMethodId: s.paymentMethodId,
    amount: s.amount,
    currency: s.currency,
    interval: s.interval,
    intervalCount: s.intervalCount,
    startDate: s.startDate,
    description: s.description,
    metadata: s.metadata,
    currentPeriod: s.period,
    nextChargeAt: s.nextChargeAt,
    retriesDone: s.retriesDone,
    latestPaymentId: s.latestPaymentId,
    canceledAt: s.canceledAt,
    cancellationReason: s.cancellationReason,
    environment: s.environment,
    livemode: s.environment === 'live',
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

export type SubscriptionObject = ReturnType<typeof subscriptionObject>;
