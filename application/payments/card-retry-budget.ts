/**
 * A card's brand retry budget for one run (domain/payment/retry/brand-retry-rules.ts): the counts shared by every
 * process are read once when the run is driven, every attempt the run sends is counted (there and in memory), and
 * the step function asks it before each call and at each retry node (the run's RetryGate). Counting never fails a
 * payment: an acquirer already answered, so a count that cannot be written is logged by no one and kept in memory.
 */
import { cardNetwork, classifyDecline, type CardIdentity } from '../../domain/payment/decline/classify-decline';
import type { PaymentAttempt } from '../../domain/payment/payment';
import type { RetryGate } from '../../domain/flow-run/retry-node';
import { brandAllowsAttempt, hourOf, LONGEST_RETRY_WINDOW_HOURS, retryAllowed, RETRY_ALLOWED, type CardAttemptBucket, type CountedAttemptKind, type RetryVerdict } from '../../domain/payment/retry/brand-retry-rules';
import type { CardRetryCounts, CountedCard } from '../../domain/ports/card-retry-counts';
import type { Clock } from '../../domain/ports/clock';
import type { TenantScope } from '../../domain/shared/environment';

/** The card as counted: bin, last four and expiry when known (never the number), else its token. */
export function cardFingerprintOf(card: { bin?: string | null; last4?: string | null; expMonth?: number | null; expYear?: number | null }, token: string): string {
  return card.last4 ? `${card.bin ?? ''}:${card.last4}:${card.expMonth ?? ''}/${card.expYear ?? ''}` : token;
}

export class CardRetryBudget implements RetryGate {
  private lastDecline: { reversible: boolean; rawCode: string } | null = null;

  private constructor(
    private readonly counts: CardRetryCounts | null,
    private readonly card: CountedCard | null,
    private readonly identity: CardIdentity | null,
    private readonly amount: number,
    private readonly clock: Clock,
    private readonly history: CardAttemptBucket[],
  ) {}

  /** No counts wired, or a payment without a card of a known brand: nothing but maxAttempts limits its retries. */
  static unlimited(clock: Clock): CardRetryBudget {
    return new CardRetryBudget(null, null, null, 0, clock, []);
  }

  static async load(input: {
    counts: CardRetryCounts | undefined;
    clock: Clock;
    scope: TenantScope;
    card: (CardIdentity & { last4?: string | null; expMonth?: number | null; expYear?: number | null }) | null;
    token: string | null;
    amount: number;
  }): Promise<CardRetryBudget> {
    const network = input.card ? cardNetwork(input.card) : null;
    if (!input.counts || !input.card || !network || !input.token) return CardRetryBudget.unlimited(input.clock);
    const counted: CountedCard = { scope: input.scope, network, fingerprint: cardFingerprintOf(input.card, input.token) };
    const since = hourOf(new Date(input.clock.now().getTime() - LONGEST_RETRY_WINDOW_HOURS * 3_600_000));
    const history = await input.counts.history(counted, since);
    return new CardRetryBudget(input.counts, counted, input.card, input.amount, input.clock, history);
  }

  verdict(use: 'call' | 'retry'): RetryVerdict {
    if (!this.card) return use === 'retry' ? retryAllowed({ network: null, amount: 0, history: [], now: this.clock.now(), lastDecline: this.lastDecline }) : RETRY_ALLOWED;
    const input = { network: this.card.network, amount: this.amount, history: this.history, now: this.clock.now() };
    return use === 'retry' ? retryAllowed({ ...input, lastDecline: this.lastDecline }) : brandAllowsAttempt(input);
  }

  /** Counts an attempt the run sent: a decline by its reversibility, a failure once the request left. */
  async record(attempt: PaymentAttempt): Promise<void> {
    const kind = this.kindOf(attempt);
    if (attempt.outcome === 'declined' && attempt.rawCode) {
      this.lastDecline = { reversible: classifyDecline(attempt.rawCode, this.identity).reversibility === 'REVERSIBLE', rawCode: attempt.rawCode };
    }
    if (!kind || !this.card) return;
    const at = this.clock.now();
    this.history.push({ kind, amount: this.amount, hour: hourOf(at), count: 1 });
    try {
      await this.counts?.count(this.card, { kind, amount: this.amount, at });
    } catch {
      // The acquirer answered already; the count in memory still guards this run.
    }
  }

  private kindOf(attempt: PaymentAttempt): CountedAttemptKind | null {
    if (attempt.outcome === 'declined' && attempt.classification !== 'AUTHENTICATION_REQUIRED') {
      return classifyDecline(attempt.rawCode, this.identity).reversibility === 'REVERSIBLE' ? 'reversible_decline' : 'irreversible_decline';
    }
    // An account that could not even be opened sent nothing (no connector slug): that attempt reached no network.
    if ((attempt.outcome === 'technical_failure' || attempt.outcome === 'timeout') && attempt.connectorSlug !== '') return 'failed_after_sending';
    return null;
  }
}
