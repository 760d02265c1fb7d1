import { DomainError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from './payment-deps';

const DAY = 24 * 60 * 60 * 1000;

/**
 * Dashboard summary for a period (default: the last 30 days up to now): totals, approval rate in basis points,
 * captured volume, average ticket, refunds, value recovered by fallback, the same figures for the previous period
 * of equal length, a series (hourly up to 2 days, daily above) and performance per connector account.
 */
export class PaymentSummary {
  constructor(private readonly deps: PaymentDeps) {}

  async execute(input: { scope: TenantScope; from?: Date; to?: Date }) {
    const to = input.to ?? this.deps.clock.now();
    const from = input.from ?? new Date(to.getTime() - 30 * DAY);
    if (from.getTime() >= to.getTime()) throw new DomainError('validation_failed', 'from must be before to.', { param: 'query.from' });
    const length = to.getTime() - from.getTime();
    const previousFrom = new Date(from.getTime() - length);
    const granularity: 'hour' | 'day' = length <= 2 * DAY ? 'hour' : 'day';
    return this.deps.transactor.read(async (tx) => {
      const [current, previous, series, connectorAccounts] = await Promise.all([
        this.deps.queries.figures(tx, input.scope, from, to),
        this.deps.queries.figures(tx, input.scope, previousFrom, from),
        this.deps.queries.series(tx, input.scope, from, to, granularity),
        this.deps.queries.perConnectorAccount(tx, input.scope, from, to),
      ]);
      return {
        object: 'payment_summary' as const,
        period: { from: from.toISOString(), to: to.toISOString() },
        previousPeriod: { from: previousFrom.toISOString(), to: from.toISOString() },
        currency: 'BRL',
        ...current,
        previous,
        series: { granularity, points: series },
        connectorAccounts,
      };
    });
  }
}
