import { daysFrom, daysInMonth, monthBounds, type BillingMonth } from '../../domain/billing/billing-month';
import { monthlyInvoiceLines } from '../../domain/billing/invoice-computation';
import type { InvoiceLine, Subscription } from '../../domain/billing/subscription';
import type { PlatformBillingRepository } from '../../domain/ports/platform-billing';
import type { Transaction } from '../../domain/ports/transactor';

/**
 * A subscription's lines for a month, counting the live payments made while the plan was in force up to `until`
 * (the month's end when closing, now for the partial invoice). Trial payments before the plan are not billed.
 */
export async function monthLines(
  billing: PlatformBillingRepository,
  tx: Transaction,
  subscription: Subscription,
  month: BillingMonth,
  timeZone: string,
  until: Date,
): Promise<{ livePayments: number; lines: InvoiceLine[] }> {
  const { start } = monthBounds(month, timeZone);
  const from = subscription.startedAt.getTime() > start.getTime() ? subscription.startedAt : start;
  const livePayments = until.getTime() > from.getTime() ? await billing.livePayments(tx, subscription.companyId, from, until) : 0;
  const lines = monthlyInvoiceLines({
    plan: subscription.plan,
    interval: subscription.interval,
    livePayments,
    activeDays: daysFrom(month, subscription.startedAt, timeZone),
    daysInMonth: daysInMonth(month),
  });
  return { livePayments, lines };
}
