import { billingMonthOf, daysElapsed, daysInMonth, monthBounds, previousMonth } from '../../domain/billing/billing-month';
import { linesTotalCents, monthlyInvoiceLines, projectedPayments } from '../../domain/billing/invoice-computation';
import { NotFoundError } from '../../domain/shared/domain-error';
import { daysFrom } from '../../domain/billing/billing-month';
import type { BillingDeps } from './billing-deps';
import { invoiceView, lineView, subscriptionView } from './billing-views';
import { monthLines } from './month-invoice';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The finance team's page: the plan, this month's production usage with its computed lines (the partial invoice),
 * the projection to month end, the previous month for comparison, sandbox usage (shown, never billed), the next
 * invoice and the monthly history.
 */
export class BillingOverview {
  constructor(private readonly deps: BillingDeps) {}

  async execute(organizationId: string) {
    const { timeZone, catalog } = this.deps;
    const now = this.deps.clock.now();
    const month = billingMonthOf(now, timeZone);
    const bounds = monthBounds(month, timeZone);
    const previous = previousMonth(month);
    const previousBounds = monthBounds(previous, timeZone);
    return this.deps.transactor.read(async (tx) => {
      const companyId = await this.deps.billing.companyOf(tx, organizationId);
      if (!companyId) throw new NotFoundError('organization', organizationId);
      const subscription = await this.deps.billing.subscription(tx, companyId);
      // Counted to the month's end: nothing is created after now, and a payment made this very instant is included.
      const productionPayments = await this.deps.billing.livePayments(tx, companyId, bounds.start, bounds.end);
      const sandboxPayments = await this.deps.billing.sandboxPayments(tx, companyId, bounds.start, bounds.end);
      const previousProduction = await this.deps.billing.livePayments(tx, companyId, previousBounds.start, previousBounds.end);
      const invoices = await this.deps.billing.invoices(tx, companyId);
      const previousInvoice = invoices.find((invoice) => invoice.kind === 'monthly' && invoice.month === previous) ?? null;

      const billed = subscription ? await monthLines(this.deps.billing, tx, subscription, month, timeZone, bounds.end) : { livePayments: 0, lines: [] };
      const partialTotal = linesTotalCents(billed.lines);
      const projected = projectedPayments(billed.livePayments, daysElapsed(month, now, timeZone), daysInMonth(month));
      const projectedLines = subscription
        ? monthlyInvoiceLines({
            plan: subscription.plan,
            interval: subscription.interval,
            livePayments: projected,
            activeDays: daysFrom(month, subscription.startedAt, timeZone),
            daysInMonth: daysInMonth(month),
          })
        : [];
      const projectedTotal = linesTotalCents(projectedLines);
      const previousTotal = previousInvoice?.totalCents ?? 0;
      return {
        object: 'platform_billing_overview',
        currency: catalog.currency,
        timeZone,
        plan: subscription ? subscriptionView(subscription) : null,
        currentMonth: {
          month,
          productionPayments,
          billedPayments: billed.livePayments,
          lines: billed.lines.map(lineView),
          partialInvoice: { total: partialTotal },
          projection: { productionPayments: projected, lines: projectedLines.map(lineView), total: projectedTotal },
        },
        previousMonth: {
          month: previous,
          productionPayments: previousProduction,
          invoiceId: previousInvoice?.id ?? null,
          total: previousTotal,
          comparison: { productionPayments: productionPayments - previousProduction, total: partialTotal - previousTotal },
        },
        sandboxUsage: { month, payments: sandboxPayments, billed: false },
        nextInvoice: subscription
          ? { month, issuesAt: bounds.end.toISOString(), dueAt: new Date(bounds.end.getTime() + catalog.invoiceDueDays * DAY_MS).toISOString(), estimatedTotal: projectedTotal }
          : null,
        history: invoices.slice(0, 12).map((invoice) => {
          const view = invoiceView(invoice, now, null);
          return { id: view.id, kind: view.kind, month: view.month, total: view.total, balance: view.balance, status: view.status, overdue: view.overdue };
        }),
      };
    });
  }
}
