import { billingMonthOf, monthBounds, previousMonth, type BillingMonth } from '../../domain/billing/billing-month';
import { linesTotalCents } from '../../domain/billing/invoice-computation';
import type { BillingDeps } from './billing-deps';
import { monthLines } from './month-invoice';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The monthly closing: once the platform's month has ended (in its time zone), one invoice per subscribed company
 * for that month. The claim of the month and its invoices commit together, so however many workers run it, the month
 * closes once, and a worker that dies halfway leaves it unclaimed for the next run.
 */
export class CloseBillingMonth {
  constructor(private readonly deps: BillingDeps) {}

  /** Closes the month before the current one, if no worker did yet. */
  async run(): Promise<{ month: BillingMonth; closed: boolean; invoices: number }> {
    return this.close(previousMonth(billingMonthOf(this.deps.clock.now(), this.deps.timeZone)));
  }

  async close(month: BillingMonth): Promise<{ month: BillingMonth; closed: boolean; invoices: number }> {
    const { timeZone, catalog } = this.deps;
    const { end } = monthBounds(month, timeZone);
    const now = this.deps.clock.now();
    if (now.getTime() < end.getTime()) return { month, closed: false, invoices: 0 };
    return this.deps.transactor.run(async (tx) => {
      if (!(await this.deps.billing.claimMonthClosing(tx, month, now))) return { month, closed: false, invoices: 0 };
      let invoices = 0;
      for (const subscription of await this.deps.billing.subscriptionsStartedBefore(tx, end)) {
        const { lines } = await monthLines(this.deps.billing, tx, subscription, month, timeZone, end);
        const totalCents = linesTotalCents(lines);
        // An annual plan prepaid its fee: its month is invoiced only for payments above the included ones.
        if (subscription.interval === 'annual' && totalCents === 0) continue;
        const inserted = await this.deps.billing.insertInvoice(tx, {
          id: this.deps.ids.next('inv_'),
          companyId: subscription.companyId,
          kind: 'monthly',
          month,
          currency: catalog.currency,
          lines,
          totalCents,
          issuedAt: now,
          dueAt: new Date(end.getTime() + catalog.invoiceDueDays * DAY_MS),
          entries: [],
        });
        if (inserted) invoices += 1;
      }
      return { month, closed: true, invoices };
    });
  }
}
