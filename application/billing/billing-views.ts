/** Public shapes of platform billing reads (money in integer cents of the catalog's currency). */
import { annualFeeCents, type PaymentInstructions, type Plan, type PlanCatalog } from '../../domain/billing/plan-catalog';
import { TRIAL_DAYS, TRIAL_PAYMENTS } from '../../domain/billing/free-trial';
import { invoiceBalanceCents, invoiceStanding } from '../../domain/billing/invoice-computation';
import type { ProductionAccess } from '../../domain/billing/production-access';
import type { InvoiceLine, Subscription } from '../../domain/billing/subscription';
import type { StoredInvoice } from '../../domain/ports/platform-billing';

export function planView(plan: Plan) {
  return {
    code: plan.code,
    name: plan.name,
    monthlyFee: plan.monthlyFeeCents,
    annualFee: annualFeeCents(plan),
    includedPayments: plan.includedPayments,
    perPayment: plan.perPaymentCents,
  };
}

export function catalogView(catalog: PlanCatalog) {
  return { object: 'platform_billing_catalog', version: catalog.version, currency: catalog.currency, plans: catalog.plans.map(planView) };
}

export function subscriptionView(subscription: Subscription) {
  return {
    object: 'platform_subscription',
    plan: planView(subscription.plan),
    planVersion: subscription.catalogVersion,
    billingInterval: subscription.interval,
    status: subscription.productionReleasedAt ? 'active' : 'awaiting_settlement',
    startedAt: subscription.startedAt.toISOString(),
    paidThrough: subscription.paidThrough?.toISOString() ?? null,
    productionReleasedAt: subscription.productionReleasedAt?.toISOString() ?? null,
    prepaidInvoiceId: subscription.prepaidInvoiceId,
  };
}

export function accessView(companyId: string, access: ProductionAccess, subscription: Subscription | null) {
  const { trial } = access;
  return {
    object: 'platform_billing_access',
    companyId,
    production: { allowed: access.allowed, through: access.through },
    trial: {
      status: trial.status,
      endedBy: trial.endedBy,
      endsAt: trial.endsAt.toISOString(),
      daysLimit: TRIAL_DAYS,
      paymentsLimit: TRIAL_PAYMENTS,
      paymentsUsed: trial.paymentsUsed,
      paymentsRemaining: trial.paymentsRemaining,
    },
    plan: subscription ? subscriptionView(subscription) : null,
  };
}

export function lineView(entry: InvoiceLine) {
  return { description: entry.description, quantity: entry.quantity, unitAmount: entry.unitAmountCents, amount: entry.amountCents };
}

/** One invoice; payment instructions only while an amount is due, and only as the administration configured them. */
export function invoiceView(invoice: StoredInvoice, now: Date, instructions: PaymentInstructions | null) {
  const balance = invoiceBalanceCents(invoice.totalCents, invoice.entries);
  const standing = invoiceStanding(balance, invoice.dueAt, now);
  const entries = (kind: 'receipt' | 'adjustment') =>
    invoice.entries.filter((entry) => entry.kind === kind).map((entry) => ({ id: entry.id, amount: entry.amountCents, note: entry.note, recordedAt: entry.recordedAt.toISOString() }));
  return {
    object: 'platform_invoice',
    id: invoice.id,
    kind: invoice.kind,
    month: invoice.month,
    currency: invoice.currency,
    status: standing.status,
    overdue: standing.overdue,
    issuedAt: invoice.issuedAt.toISOString(),
    dueAt: invoice.dueAt.toISOString(),
    lines: invoice.lines.map(lineView),
    total: invoice.totalCents,
    receipts: entries('receipt'),
    adjustments: entries('adjustment'),
    balance,
    paymentInstructions: balance > 0 ? instructions : null,
  };
}
