import type { CardNetwork } from '../payment/decline/decline-table';
import type { CardAttemptBucket, CountedAttemptKind } from '../payment/retry/brand-retry-rules';
import type { TenantScope } from '../shared/environment';

/** One card at one merchant, as the brand retry rules count it (the fingerprint is never a card number). */
export interface CountedCard {
  readonly scope: TenantScope;
  readonly network: CardNetwork;
  readonly fingerprint: string;
}

/**
 * The brand retry counts (domain/payment/retry/brand-retry-rules.ts), shared by every process and kept across
 * restarts: per card, merchant, amount, kind of attempt and hour. Each call is its own short transaction, outside
 * any acquirer call; concurrent counts of one card add up.
 */
export interface CardRetryCounts {
  /** Counts one attempt in the hour `at` falls in. */
  count(card: CountedCard, attempt: { kind: CountedAttemptKind; amount: number; at: Date }): Promise<void>;
  /** The card's buckets from `since` (an hour's start) on, every amount and kind. */
  history(card: CountedCard, since: Date): Promise<CardAttemptBucket[]>;
}
