import type { Currency } from '../../domain/payment/payment';
import { DomainError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import { EARLIEST_INSTANT } from '../../domain/shared/instant-range';
import type { PaymentDeps } from './payment-deps';

const DAY = 24 * 60 * 60 * 1000;

/**
 * The longest period summarized at once: a year, leap day included. The series has one bucket per day above two
 * days, so an unbounded period (from=1900-...) answered tens of thousands of buckets and megabytes, slowly.
 */
export const MAX_SUMMARY_DAYS = 366;

/**
 * Dashboard summary for a period (default: the last 30 days up to now) in one currency (default BRL): totals,
 * approval rate in basis points, captured volume, average ticket, refunds, value recovered by fallback, the same
 * figures for the previous period of equal length, a series (hourly up to 2 days, daily above) and performance
 * per connector account. Amounts of different currencies are never added together.
 */
export class PaymentSummary {
  constructor(private readonly deps: PaymentDeps) {}

  async execute(input: { scope: TenantScope; from?: Date; to?: Date; currency?: Currency }) {
    const currency = input.currency ?? 'BRL';
    const to = input.to ?? this.deps.clock.now();
    const from = input.from ?? new Date(to.getTime() - 30 * DAY);
    const { previousFrom, length } = checkedPeriod(from, to, input.from ? 'query.from' : 'query.to');
    const granularity: 'hour' | 'day' = length <= 2 * DAY ? 'hour' : 'day';
    const filter = { currency };
    return this.deps.transactor.read(async (tx) => {
      const [current, previous, series, connectorAccounts] = await Promise.all([
        this.deps.queries.figures(tx, input.scope, from, to, filter),
        this.deps.queries.figures(tx, input.scope, previousFrom, from, filter),
        this.deps.queries.series(tx, input.scope, from, to, granularity, filter),
        this.deps.queries.perConnectorAccount(tx, input.scope, from, to, filter),
      ]);
      return {
        object: 'payment_summary' as const,
        period: { from: from.toISOString(), to: to.toISOString() },
        previousPeriod: { from: previousFrom.toISOString(), to: from.toISOString() },
        currency,
        ...current,
        previous,
        series: { granularity, points: series },
        connectorAccounts,
      };
    });
  }
}

/**
 * The period's length and the start of the previous one, or a 422 naming `param`: from before to, at most
 * MAX_SUMMARY_DAYS, and a previous period that starts within the instants the database stores (before year 1
 * PostgreSQL fails the query). `param` is the from the caller sent, else the to its default 30 days precede.
 */
function checkedPeriod(from: Date, to: Date, param: string): { previousFrom: Date; length: number } {
  const length = to.getTime() - from.getTime();
  if (length <= 0) throw new DomainError('validation_failed', 'from must be before to.', { param });
  if (length > MAX_SUMMARY_DAYS * DAY) {
    throw new DomainError('validation_failed', `The period from ${from.toISOString()} to ${to.toISOString()} is longer than ${MAX_SUMMARY_DAYS} days, the most one summary covers.`, { param });
  }
  const previousFrom = new Date(from.getTime() - length);
  if (previousFrom.getTime() < EARLIEST_INSTANT.getTime()) {
    throw new DomainError('validation_failed', `The previous period of equal length would start before ${EARLIEST_INSTANT.toISOString()}; choose a later period.`, { param });
  }
  return { previousFrom, length };
}
