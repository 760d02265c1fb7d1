import type { Clock } from '../../domain/ports/clock';
import type { EventOutbox } from '../../domain/ports/event-outbox';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type { CustomerRepository, SavedPaymentMethodRepository } from '../../domain/ports/payment-repositories';
import type { SubscriptionRepository } from '../../domain/ports/subscriptions';
import type { Transactor } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';

/** A renewal's payment as the subscription needs to know it. */
export interface RenewalCharge {
  readonly paymentId: string;
  /** succeeded: captured or authorized; failed: failed or canceled; pending: not ended yet (e.g. a flow's retry node waits). */
  readonly outcome: 'succeeded' | 'failed' | 'pending';
  readonly decline: { readonly reason: string; readonly reversibility: 'REVERSIBLE' | 'irreversible'; readonly retryAction: string } | null;
  /** The payment's routing.stopReason (e.g. brand_retry_limit). */
  readonly stopReason: string | null;
}

/**
 * How subscriptions charge: through the payments capability, as a merchant-initiated recurring payment under a
 * trigger event. The key binds the payment to the subscription's period and try: charging twice with one key gives
 * the first payment back (never a second charge).
 */
export interface RenewalCharges {
  charge(input: {
    readonly scope: TenantScope;
    readonly idempotencyKey: string;
    readonly triggerEvent: 'subscription.renewal' | 'payment.retry_requested';
    readonly amount: number;
    readonly currency: string;
    readonly customerId: string;
    readonly paymentMethodId: string;
    readonly description: string | null;
    readonly metadata: Record<string, string | number | boolean | null>;
  }): Promise<RenewalCharge>;
  /** A charge made earlier, as it stands now. */
  find(scope: TenantScope, paymentId: string): Promise<RenewalCharge | null>;
}

export interface SubscriptionDeps {
  readonly transactor: Transactor;
  readonly outbox: EventOutbox;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly subscriptions: SubscriptionRepository;
  readonly customers: CustomerRepository;
  readonly paymentMethods: SavedPaymentMethodRepository;
  readonly charges: RenewalCharges;
}
