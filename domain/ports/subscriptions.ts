import type { Subscription } from '../subscription/subscription';
import type { TenantScope } from '../shared/environment';
import type { Transaction } from './transactor';

/** A subscription whose charge is due, taken by one renewal worker until `leaseUntil`. */
export interface ClaimedRenewal {
  readonly subscriptionId: string;
  readonly scope: TenantScope;
  readonly leaseOwner: string;
}

/** Subscriptions and their renewal jobs (the subscription row is the job: its nextChargeAt and lease). */
export interface SubscriptionRepository {
  insert(tx: Transaction, subscription: Subscription): Promise<void>;
  /**
   * Saves the subscription; with `leaseOwner`, only while that worker still holds the renewal (false: another worker
   * took it over, nothing saved). The lease is released either way.
   */
  update(tx: Transaction, subscription: Subscription, options?: { leaseOwner?: string }): Promise<boolean>;
  find(tx: Transaction, scope: TenantScope, id: string, options?: { forUpdate?: boolean }): Promise<Subscription | null>;
  /** Newest first; `startingAfter` is a subscription id of the previous page. */
  list(tx: Transaction, scope: TenantScope, query: { limit: number; startingAfter?: string; customerId?: string; status?: string }): Promise<Subscription[]>;
  /**
   * Takes up to `limit` subscriptions whose charge is due and whose lease is free or ran out (rows another worker is
   * claiming are skipped, not waited for), leasing them to `leaseOwner` until `leaseUntil`.
   */
  claimDue(tx: Transaction, input: { now: Date; leaseOwner: string; leaseUntil: Date; limit: number }): Promise<ClaimedRenewal[]>;
  /** Whether `leaseOwner` still holds the renewal of this subscription at `now`. */
  holdsLease(tx: Transaction, subscriptionId: string, leaseOwner: string, now: Date): Promise<boolean>;
}
