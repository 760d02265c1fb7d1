import { transition, type TransitionTable } from '../shared/state-machine';
import { chargeDate, type RenewalInterval } from './renewal-schedule';
import type { RenewalRetryDecision } from './renewal-retry-policy';

export type SubscriptionStatus = 'active' | 'past_due' | 'canceled';
type SubscriptionTrigger = 'renewal_paid' | 'renewal_failed' | 'cancel' | 'cancel_by_issuer';

/** Transitions of a subscription (spec: not shown; docs/subscriptions.md). */
export const SUBSCRIPTION_TRANSITIONS = {
  active: { renewal_paid: 'active', renewal_failed: 'past_due', cancel: 'canceled', cancel_by_issuer: 'canceled' },
  past_due: { renewal_paid: 'active', renewal_failed: 'past_due', cancel: 'canceled', cancel_by_issuer: 'canceled' },
  canceled: {},
} as const satisfies TransitionTable<SubscriptionStatus, SubscriptionTrigger>;

export interface SubscriptionPrimitives {
  readonly id: string;
  readonly organizationId: string;
  readonly environment: 'sandbox' | 'live';
  readonly customerId: string;
  readonly paymentMethodId: string;
  readonly amount: number;
  readonly currency: string;
  readonly interval: RenewalInterval;
  readonly intervalCount: number;
  /** The first charge's instant; every later charge is counted from it (renewal-schedule.ts). */
  readonly startDate: string;
  readonly description: string | null;
  readonly metadata: Record<string, string | number | boolean | null>;
  readonly status: SubscriptionStatus;
  /** The period being charged: 0 is the first charge, n the charge due at chargeDate(startDate, n). */
  readonly period: number;
  /** Retries of the current period already made (a failed retry is counted before the next one is scheduled). */
  readonly retriesDone: number;
  /** When the renewal job next charges (the period's date, or a retry's); null once canceled. */
  readonly nextChargeAt: string | null;
  /** A charge made but not yet ended (e.g. a flow's retry node waiting): the job looks at it again instead of charging. */
  readonly pendingPaymentId: string | null;
  readonly latestPaymentId: string | null;
  readonly canceledAt: string | null;
  readonly cancellationReason: 'merchant' | 'issuer' | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What a new subscription is made of: the terms as the merchant set them, its start, and the moment of creation. */
export interface NewSubscription
  extends Pick<SubscriptionPrimitives, 'id' | 'organizationId' | 'environment' | 'customerId' | 'paymentMethodId' | 'amount' | 'currency' | 'interval' | 'intervalCount' | 'description' | 'metadata'> {
  /** null, or not in the future: the first charge is at once. */
  readonly startDate: Date | null;
  readonly now: Date;
}

/** A merchant's recurring charge of a customer's saved card (contract.md 4). */
export class Subscription {
  private constructor(private state: SubscriptionPrimitives) {}

  static create(input: NewSubscription): Subscription {
    const start = input.startDate && input.startDate.getTime() > input.now.getTime() ? input.startDate : input.now;
    const now = input.now.toISOString();
    return new Subscription({
      id: input.id,
      organizationId: input.organizationId,
      environment: input.environment,
      customerId: input.customerId,
      paymentMethodId: input.paymentMethodId,
      amount: input.amount,
      currency: input.currency,
      interval: input.interval,
      intervalCount: input.intervalCount,
      startDate: start.toISOString(),
      description: input.description,
      metadata: input.metadata,
      status: 'active',
      period: 0,
      retriesDone: 0,
      nextChargeAt: start.toISOString(),
      pendingPaymentId: null,
      latestPaymentId: null,
      canceledAt: null,
      cancellationReason: null,
      createdAt: now,
      updatedAt: now,
    });
  }

  static fromPrimitives(state: SubscriptionPrimitives): Subscription {
    return new Subscription(state);
  }

  toPrimitives(): SubscriptionPrimitives {
    return this.state;
  }

  get id(): string {
    return this.state.id;
  }

  /** The instant period `n` starts (and its charge is due). */
  periodStart(n: number): Date {
    return chargeDate(new Date(this.state.startDate), this.state.interval, this.state.intervalCount, n);
  }

  /** The idempotency key of the current period's charge (or retry): one payment per key, however often the job runs. */
  chargeKey(): string {
    return `subscription:${this.state.id}:period:${this.state.period}:try:${this.state.retriesDone}`;
  }

  /** The current charge is under way (not ended): look at this payment again at `checkAt`. */
  chargePending(paymentId: string, checkAt: Date, now: Date): void {
    this.state = { ...this.state, pendingPaymentId: paymentId, nextChargeAt: checkAt.toISOString(), updatedAt: now.toISOString() };
  }

  /** The period is paid: the next period's charge is scheduled. */
  renewalPaid(paymentId: string, now: Date): void {
    const status = transition('subscription', SUBSCRIPTION_TRANSITIONS, this.state.status, 'renewal_paid');
    this.nextPeriod(status, paymentId, now);
  }

  /**
   * The period's charge failed: past_due, and either a retry at the decision's time, or (no retry but the issuer's
   * go-ahead) the period stays unpaid and the next one is scheduled. An irreversible decline cancels (cancelByIssuer).
   */
  renewalFailed(paymentId: string, decision: RenewalRetryDecision, now: Date): void {
    const status = transition('subscription', SUBSCRIPTION_TRANSITIONS, this.state.status, 'renewal_failed');
    if (decision.willRetry) {
      this.state = { ...this.state, status, retriesDone: decision.attempt, nextChargeAt: decision.nextRetryAt.toISOString(), pendingPaymentId: null, latestPaymentId: paymentId, updatedAt: now.toISOString() };
      return;
    }
    this.nextPeriod(status, paymentId, now);
  }

  cancel(now: Date): void {
    this.state = { ...this.closed(transition('subscription', SUBSCRIPTION_TRANSITIONS, this.state.status, 'cancel'), now), cancellationReason: 'merchant' };
  }

  /** The issuer answered "do not retry": no charge of this card will ever pass, so nothing is charged again. */
  cancelByIssuer(paymentId: string, now: Date): void {
    this.state = { ...this.closed(transition('subscription', SUBSCRIPTION_TRANSITIONS, this.state.status, 'cancel_by_issuer'), now), cancellationReason: 'issuer', latestPaymentId: paymentId };
  }

  private closed(status: SubscriptionStatus, now: Date): SubscriptionPrimitives {
    return { ...this.state, status, nextChargeAt: null, pendingPaymentId: null, canceledAt: now.toISOString(), updatedAt: now.toISOString() };
  }

  private nextPeriod(status: SubscriptionStatus, paymentId: string, now: Date): void {
    const period = this.state.period + 1;
    this.state = {
      ...this.state,
      status,
      period,
      retriesDone: 0,
      nextChargeAt: this.periodStart(period).toISOString(),
      pendingPaymentId: null,
      latestPaymentId: paymentId,
      updatedAt: now.toISOString(),
    };
  }
}
