/**
 * How a platform invoice is computed (docs/billing.md has a worked example). Pure functions over integer cents:
 * every line is quantity x unit price, the total is the sum of the lines, and the balance follows receipts and
 * adjustments recorded by operators.
 */
import type { BillingInterval, Plan } from './plan-catalog';
import { line, type InvoiceLine } from './subscription';

export interface MonthUsage {
  readonly plan: Plan;
  readonly interval: BillingInterval;
  /** Production payments of the month while the plan was in force (trial payments are free). */
  readonly livePayments: number;
  /** Days of the month the plan was in force (the first month's fee is prorated by day). */
  readonly activeDays: number;
  readonly daysInMonth: number;
}

/** Fee share for part of a month, rounded half up to the cent. */
export function proratedFeeCents(monthlyFeeCents: number, activeDays: number, daysInMonth: number): number {
  if (activeDays >= daysInMonth) return monthlyFeeCents;
  return Math.round((monthlyFeeCents * Math.max(0, activeDays)) / daysInMonth);
}

/**
 * A month's lines: the monthly fee (post-paid, prorated the first month; annual plans prepaid it), the included
 * payments at no charge, and each payment above them at the plan's per-payment price.
 */
export function monthlyInvoiceLines(usage: MonthUsage): InvoiceLine[] {
  const { plan } = usage;
  const lines: InvoiceLine[] = [];
  if (usage.interval === 'monthly') {
    const fee = proratedFeeCents(plan.monthlyFeeCents, usage.activeDays, usage.daysInMonth);
    const partial = usage.activeDays < usage.daysInMonth ? ` (${usage.activeDays} of ${usage.daysInMonth} days)` : '';
    lines.push(line(`${plan.name} plan, monthly fee${partial}`, 1, fee));
  }
  const included = Math.min(usage.livePayments, plan.includedPayments);
  if (included > 0) lines.push(line(`Production payments included in the plan`, included, 0));
  const above = usage.livePayments - included;
  if (above > 0) lines.push(line(`Production payments above the ${plan.includedPayments} included`, above, plan.perPaymentCents));
  return lines;
}

export function linesTotalCents(lines: readonly InvoiceLine[]): number {
  return lines.reduce((sum, entry) => sum + entry.amountCents, 0);
}

export interface InvoiceEntry {
  readonly kind: 'receipt' | 'adjustment';
  /** Receipts are positive amounts received; adjustments are signed (negative: a credit to the merchant). */
  readonly amountCents: number;
}

/** What is still due: the total, plus adjustments, less receipts. Negative means the merchant holds a credit. */
export function invoiceBalanceCents(totalCents: number, entries: readonly InvoiceEntry[]): number {
  return entries.reduce((balance, entry) => (entry.kind === 'receipt' ? balance - entry.amountCents : balance + entry.amountCents), totalCents);
}

export type InvoiceStatus = 'open' | 'paid';

export interface InvoiceStanding {
  readonly status: InvoiceStatus;
  /** Open past its due date (the list's `overdue` filter). */
  readonly overdue: boolean;
}

export function invoiceStanding(balanceCents: number, dueAt: Date, now: Date): InvoiceStanding {
  if (balanceCents <= 0) return { status: 'paid', overdue: false };
  return { status: 'open', overdue: now.getTime() > dueAt.getTime() };
}

/** The month's payments extrapolated from the days elapsed to the whole month (linear, rounded to the nearest). */
export function projectedPayments(paymentsSoFar: number, daysElapsed: number, daysInMonth: number): number {
  if (daysElapsed <= 0) return paymentsSoFar;
  if (daysElapsed >= daysInMonth) return paymentsSoFar;
  return Math.round((paymentsSoFar * daysInMonth) / daysElapsed);
}
