/**
 * Card-brand retry rules (issue 26 item 4): how many times the same card may be tried again at the same merchant
 * before a brand charges the merchant for it. One row per brand rule, each with where it comes from, so a change of
 * a brand's rule is a change of one row. ABECS irreversible codes are never retried at all (the decline table,
 * domain/payment/decline, classifies them). Pure: the caller passes the card's recent history and the time.
 */
import type { CardNetwork } from '../decline/decline-table';

/** What a counted attempt was: an issuer's reversible or irreversible decline, or a call sent that failed without an answer. */
export type CountedAttemptKind = 'reversible_decline' | 'irreversible_decline' | 'failed_after_sending';

/** The card's attempts at one merchant (organization and environment) in one hour, as the shared count keeps them. */
export interface CardAttemptBucket {
  readonly kind: CountedAttemptKind;
  readonly amount: number;
  /** The start of the hour the attempts fall in. */
  readonly hour: Date;
  readonly count: number;
}

export interface BrandRetryRule {
  readonly network: CardNetwork;
  /** Which attempts the rule counts. */
  readonly counts: readonly CountedAttemptKind[];
  /** Whether only attempts of the same amount count (the same transaction). */
  readonly sameAmount: boolean;
  readonly windowHours: number;
  /** Another attempt is refused once this many counted attempts fall in the window. */
  readonly stopAt: number;
  /** The rule in one sentence, for the run's step note and the payment's routing stop. */
  readonly rule: string;
  readonly source: string;
}

const DAY = 24;

export const BRAND_RETRY_RULES: readonly BrandRetryRule[] = [
  {
    // Counted: the reversible declines; after d of them the next attempt is retry number d, so retry 16 is refused.
    network: 'visa',
    counts: ['reversible_decline'],
    sameAmount: false,
    windowHours: 30 * DAY,
    stopAt: 16,
    rule: 'Visa allows at most 15 retries of a reversible decline of the same card at the same merchant in 30 days',
    source: 'Visa Excessive Reattempts program (Visa Core Rules, "reattempts"), as published to merchants by acquirers in Brazil',
  },
  {
    // Counted: every attempt that was sent and not approved; after 7 of them the next would be the 8th, which is charged.
    network: 'mastercard',
    counts: ['reversible_decline', 'irreversible_decline', 'failed_after_sending'],
    sameAmount: true,
    windowHours: DAY,
    stopAt: 7,
    rule: 'Mastercard charges from the 8th attempt of a transaction (same card, amount and merchant) in 24 hours',
    source: 'Mastercard Excessive Attempts / Transaction Processing Excellence program, as published to merchants by acquirers in Brazil',
  },
  {
    // Counted: the declines of the same card and amount; after d of them the next attempt is retry number d.
    network: 'elo',
    counts: ['reversible_decline', 'irreversible_decline'],
    sameAmount: true,
    windowHours: 30 * DAY,
    stopAt: 16,
    rule: 'Elo charges from the 16th retry of the same card, amount and merchant in 30 days',
    source: 'Elo retry program (programa de retentativas Elo), as published to merchants by acquirers in Brazil',
  },
];

/** The longest window any rule looks back: how much history a count must keep and read. */
export const LONGEST_RETRY_WINDOW_HOURS = Math.max(...BRAND_RETRY_RULES.map((r) => r.windowHours));

export type RetryVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly reason: 'irreversible_decline' | 'brand_retry_limit'; readonly message: string };

export const RETRY_ALLOWED: RetryVerdict = { allowed: true };

/** The start of the hour `at` falls in (the counts' bucket). */
export function hourOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000);
}

/**
 * Whether one more attempt of this card at this merchant stays within its brand's rules. The window counts whole
 * hours: an hour partly inside it counts whole, so the evaluation errs on stopping early, never late.
 */
export function brandAllowsAttempt(input: { network: CardNetwork | null; amount: number; history: readonly CardAttemptBucket[]; now: Date }): RetryVerdict {
  for (const rule of BRAND_RETRY_RULES) {
    if (rule.network !== input.network) continue;
    const since = hourOf(new Date(input.now.getTime() - rule.windowHours * 3_600_000)).getTime();
    const counted = input.history
      .filter((b) => b.hour.getTime() >= since && rule.counts.includes(b.kind) && (!rule.sameAmount || b.amount === input.amount))
      .reduce((n, b) => n + b.count, 0);
    if (counted >= rule.stopAt) {
      return { allowed: false, reason: 'brand_retry_limit', message: `${rule.rule}; this card has ${counted} counted attempts in the window, so it is not tried again.` };
    }
  }
  return RETRY_ALLOWED;
}

/** A retry node's question: the last decline's reversibility first (ABECS irreversible: never), then the brand's budget. */
export function retryAllowed(input: Parameters<typeof brandAllowsAttempt>[0] & { lastDecline: { reversible: boolean; rawCode: string } | null }): RetryVerdict {
  if (input.lastDecline && !input.lastDecline.reversible) {
    return { allowed: false, reason: 'irreversible_decline', message: `Decline code ${input.lastDecline.rawCode} is irreversible (ABECS): the card is never retried for this sale.` };
  }
  return brandAllowsAttempt(input);
}
