/**
 * What happens after a renewal's payment failed (docs/subscriptions.md). A pure function of the failure and of the
 * retries already made, so the schedule and its stops are a table the tests walk.
 */

/** Retries after a failed renewal, counted from the failure: one day, three days, five days later. */
export const RENEWAL_RETRY_DELAYS_MS: readonly number[] = [1, 3, 5].map((days) => days * 86_400_000);

export interface RenewalFailure {
  /** The issuer's answer, when one came (null: the payment failed without one, e.g. no account could take it). */
  readonly decline: { readonly reversibility: 'REVERSIBLE' | 'irreversible'; readonly retryAction: string } | null;
  /** Why routing stopped (the payment's routing.stopReason): `brand_retry_limit` means the card brand's budget forbade a call. */
  readonly stopReason: string | null;
  /** Retries of this period already made (0 after the renewal's first charge). */
  readonly retriesDone: number;
  readonly failedAt: Date;
}

export type RenewalRetryDecision =
  | { readonly willRetry: true; readonly nextRetryAt: Date; readonly attempt: number }
  | {
      readonly willRetry: false;
      /**
       * irreversible_decline: the issuer said never retry (ABECS irreversible codes; the subscription is canceled);
       * brand_retry_limit: another attempt would exceed the card brand's retry budget; retries_exhausted: every
       * scheduled retry failed.
       */
      readonly reason: 'irreversible_decline' | 'brand_retry_limit' | 'retries_exhausted';
    };

export function renewalRetryDecision(failure: RenewalFailure): RenewalRetryDecision {
  if (failure.decline?.reversibility === 'irreversible' || failure.decline?.retryAction === 'DO_NOT_RETRY') return { willRetry: false, reason: 'irreversible_decline' };
  if (failure.stopReason === 'brand_retry_limit' || failure.stopReason === 'irreversible_decline') {
    return { willRetry: false, reason: failure.stopReason };
  }
  const delay = RENEWAL_RETRY_DELAYS_MS[failure.retriesDone];
  if (delay === undefined) return { willRetry: false, reason: 'retries_exhausted' };
  return { willRetry: true, nextRetryAt: new Date(failure.failedAt.getTime() + delay), attempt: failure.retriesDone + 1 };
}
