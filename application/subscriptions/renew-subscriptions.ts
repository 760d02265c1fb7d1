import type { NewEvent } from '../../domain/ports/event-outbox';
import type { ClaimedRenewal } from '../../domain/ports/subscriptions';
import { renewalRetryDecision, type RenewalRetryDecision } from '../../domain/subscription/renewal-retry-policy';
import type { Subscription } from '../../domain/subscription/subscription';
import { subscriptionObject } from './subscription-object';
import type { RenewalCharge, SubscriptionDeps } from './subscription-deps';

/** How long a worker holds a claimed renewal: far longer than a charge's connector deadline. */
export const RENEWAL_LEASE_MS = 5 * 60_000;
/** A charge not ended yet (a flow waiting) is looked at again after this long. */
export const PENDING_CHARGE_RECHECK_MS = 60_000;

/**
 * The renewal job (docs/subscriptions.md): claims due subscriptions with a lease (SKIP LOCKED, so workers never
 * take one renewal together) and charges each one's current period through the payments capability. The charge's
 * idempotency key names the subscription, period and try, so a worker that takes over a renewal whose first worker
 * died after charging gets that payment back instead of charging again; the outcome is saved only while the lease is
 * still the worker's.
 */
export class RenewSubscriptions {
  constructor(
    private readonly deps: SubscriptionDeps,
    private readonly options: { readonly leaseMs?: number } = {},
  ) {}

  /** Each claim is its own lease owner: a worker's batch, told apart from every other claim's. */
  async claim(limit: number): Promise<ClaimedRenewal[]> {
    const leaseOwner = this.deps.ids.next('rnw_');
    const now = this.deps.clock.now();
    const leaseUntil = new Date(now.getTime() + (this.options.leaseMs ?? RENEWAL_LEASE_MS));
    return this.deps.transactor.run((tx) => this.deps.subscriptions.claimDue(tx, { now, leaseOwner, leaseUntil, limit }));
  }

  /** Charges the claimed renewal (or looks at its pending charge) and records what it means. False: the lease was lost. */
  async renew(claimed: ClaimedRenewal): Promise<boolean> {
    const { scope, subscriptionId, leaseOwner } = claimed;
    const subscription = await this.deps.transactor.read(async (tx) => {
      if (!(await this.deps.subscriptions.holdsLease(tx, subscriptionId, leaseOwner, this.deps.clock.now()))) return null;
      return this.deps.subscriptions.find(tx, scope, subscriptionId);
    });
    if (!subscription || subscription.toPrimitives().status === 'canceled') return false;
    const s = subscription.toPrimitives();
    const charge = s.pendingPaymentId
      ? await this.deps.charges.find(scope, s.pendingPaymentId)
      : await this.deps.charges.charge({
          scope,
          idempotencyKey: subscription.chargeKey(),
          // A retry of a failed renewal runs the flows of payment.retry_requested (contract.md 4).
          triggerEvent: s.retriesDone > 0 ? 'payment.retry_requested' : 'subscription.renewal',
          amount: s.amount,
          currency: s.currency,
          customerId: s.customerId,
          paymentMethodId: s.paymentMethodId,
          description: s.description,
          metadata: { ...s.metadata, subscriptionId: s.id, subscriptionPeriod: s.period },
        });
    if (!charge) throw new Error(`payment ${s.pendingPaymentId} of subscription ${s.id} vanished`);
    return this.record(claimed, charge);
  }

  private record(claimed: ClaimedRenewal, charge: RenewalCharge): Promise<boolean> {
    return this.deps.transactor.run(async (tx) => {
      const subscription = await this.deps.subscriptions.find(tx, claimed.scope, claimed.subscriptionId, { forUpdate: true });
      if (!subscription) return false;
      const before = subscription.toPrimitives();
      const now = this.deps.clock.now();
      const events: NewEvent[] = [];
      if (charge.outcome === 'pending') {
        subscription.chargePending(charge.paymentId, new Date(now.getTime() + PENDING_CHARGE_RECHECK_MS), now);
      } else if (charge.outcome === 'succeeded') {
        subscription.renewalPaid(charge.paymentId, now);
      } else {
        const decision = renewalRetryDecision({ decline: charge.decline, stopReason: charge.stopReason, retriesDone: before.retriesDone, failedAt: now });
        events.push(invoicePaymentFailed(subscription, charge, decision, now));
        if (!decision.willRetry && decision.reason === 'irreversible_decline') {
          subscription.cancelByIssuer(charge.paymentId, now);
          events.push({ type: 'subscription.canceled_by_issuer', scope: claimed.scope, object: subscriptionObject(subscription.toPrimitives()), previousAttributes: { status: before.status } });
        } else {
          if (!decision.willRetry) events.push(retryExhausted(subscription, charge, decision.reason, now));
          subscription.renewalFailed(charge.paymentId, decision, now);
        }
      }
      // Saved only while the renewal is still this worker's (another took it over, or the merchant canceled).
      const saved = await this.deps.subscriptions.update(tx, subscription, { leaseOwner: claimed.leaseOwner });
      if (saved && events.length > 0) await this.deps.outbox.append(tx, events);
      return saved;
    });
  }
}

/** The period a charge belongs to, as events name it: `<subscriptionId>.<period>`. */
function invoiceOf(subscription: Subscription) {
  const s = subscription.toPrimitives();
  return {
    id: `${s.id}.${s.period}`,
    subscriptionId: s.id,
    customerId: s.customerId,
    period: s.period,
    periodStart: subscription.periodStart(s.period).toISOString(),
    periodEnd: subscription.periodStart(s.period + 1).toISOString(),
    amount: s.amount,
    currency: s.currency,
  };
}

/** invoice.payment_failed (spec: payload not shown; docs/subscriptions.md): the period's invoice and the retry decision. */
function invoicePaymentFailed(subscription: Subscription, charge: RenewalCharge, decision: RenewalRetryDecision, now: Date): NewEvent {
  const s = subscription.toPrimitives();
  return {
    type: 'invoice.payment_failed',
    scope: { organizationId: s.organizationId, environment: s.environment },
    object: {
      object: 'invoice',
      ...invoiceOf(subscription),
      paymentId: charge.paymentId,
      attempt: s.retriesDone + 1,
      decline: charge.decline,
      retryDecision: decision.willRetry
        ? { willRetry: true, nextRetryAt: decision.nextRetryAt.toISOString(), reason: null }
        : { willRetry: false, nextRetryAt: null, reason: decision.reason },
      failedAt: now.toISOString(),
    },
  };
}

/** retry.exhausted (payload not shown; docs/subscriptions.md): the retries of one period ended without approval. */
function retryExhausted(subscription: Subscription, charge: RenewalCharge, reason: string, now: Date): NewEvent {
  const s = subscription.toPrimitives();
  return {
    type: 'retry.exhausted',
    scope: { organizationId: s.organizationId, environment: s.environment },
    object: { object: 'retry', ...invoiceOf(subscription), attempts: s.retriesDone + 1, lastPaymentId: charge.paymentId, reason, exhaustedAt: now.toISOString() },
  };
}
