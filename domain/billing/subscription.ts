import { ANNUAL_MONTHS_CHARGED, type BillingInterval, type Plan } from './plan-catalog';

/**
 * A company's plan: the prices it accepted (copied from the catalog version in force, so a later catalog never
 * reprices it). Monthly plans are post-paid and open production at once; annual plans are prepaid (10 monthly
 * fees for 12 months) and open production only once their prepaid invoice is settled.
 */
export interface Subscription {
  readonly companyId: string;
  readonly plan: Plan;
  readonly catalogVersion: number;
  readonly interval: BillingInterval;
  readonly acceptedBy: string;
  readonly startedAt: Date;
  /** Annual: the end of the prepaid year. Monthly: null (open-ended). */
  readonly paidThrough: Date | null;
  /** When paid production opened: at once for monthly, on settlement of the prepaid invoice for annual. */
  readonly productionReleasedAt: Date | null;
  readonly prepaidInvoiceId: string | null;
}

export function subscriptionAllowsProduction(subscription: Subscription | null): boolean {
  return subscription !== null && subscription.productionReleasedAt !== null;
}

export interface InvoiceLine {
  readonly description: string;
  readonly quantity: number;
  readonly unitAmountCents: number;
  readonly amountCents: number;
}

export function line(description: string, quantity: number, unitAmountCents: number): InvoiceLine {
  return { description, quantity, unitAmountCents, amountCents: quantity * unitAmountCents };
}

/** The prepaid invoice of an annual plan: 10 monthly fees for 12 months. */
export function annualPrepaidLines(plan: Plan): InvoiceLine[] {
  return [line(`${plan.name} plan, annual (12 months for ${ANNUAL_MONTHS_CHARGED} monthly fees)`, ANNUAL_MONTHS_CHARGED, plan.monthlyFeeCents)];
}
