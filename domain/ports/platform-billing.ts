/**
 * Platform billing's storage: per company (brands share theirs), whatever environment a caller selected.
 * Repositories take the open unit of work so the trial count is taken in the payment's own first transaction.
 */
import type { TrialAllowance } from '../billing/free-trial';
import type { InvoiceEntry } from '../billing/invoice-computation';
import type { InvoiceLine, Subscription } from '../billing/subscription';
import type { Transaction } from './transactor';

export type InvoiceKind = 'monthly' | 'annual_prepaid';

export interface StoredInvoiceEntry extends InvoiceEntry {
  readonly id: string;
  readonly note: string;
  readonly recordedAt: Date;
}

export interface StoredInvoice {
  readonly id: string;
  readonly companyId: string;
  readonly kind: InvoiceKind;
  /** The billing month (YYYY-MM) of a monthly invoice; null for an annual prepayment. */
  readonly month: string | null;
  readonly currency: string;
  readonly lines: readonly InvoiceLine[];
  readonly totalCents: number;
  readonly issuedAt: Date;
  readonly dueAt: Date;
  readonly entries: readonly StoredInvoiceEntry[];
}

export interface PlatformBillingRepository {
  /** The company an organization belongs to (itself, or a brand's parent); null when it does not exist. */
  companyOf(tx: Transaction, organizationId: string): Promise<string | null>;
  /** The company's trial allowance, created on first use from its registration (start date, eligibility). */
  allowance(tx: Transaction, companyId: string): Promise<TrialAllowance>;
  /**
   * Takes one payment of the trial when fewer than `limit` were taken, atomically: of two transactions racing for
   * the last one, exactly one gets true (the other waits for the row, then sees it taken).
   */
  takeTrialPayment(tx: Transaction, companyId: string, limit: number): Promise<boolean>;
  /** Records one live payment of an organization (usage the month's invoice counts); false when already recorded. */
  recordLivePayment(tx: Transaction, organizationId: string, paymentId: string, at: Date): Promise<boolean>;
  /** Live payments of the company and its brands created in [from, to). */
  livePayments(tx: Transaction, companyId: string, from: Date, to: Date): Promise<number>;
  /** Sandbox payments of the company and its brands created in [from, to) (shown, never billed). */
  sandboxPayments(tx: Transaction, companyId: string, from: Date, to: Date): Promise<number>;
  subscription(tx: Transaction, companyId: string, options?: { forUpdate?: boolean }): Promise<Subscription | null>;
  /** False when the company already has a subscription (nothing written). */
  insertSubscription(tx: Transaction, subscription: Subscription): Promise<boolean>;
  releaseProduction(tx: Transaction, companyId: string, at: Date): Promise<void>;
  /** Every subscription started before `before` (the monthly closing bills them). */
  subscriptionsStartedBefore(tx: Transaction, before: Date): Promise<Subscription[]>;
  /** False when the company already has an invoice of that kind and month (nothing written). */
  insertInvoice(tx: Transaction, invoice: StoredInvoice): Promise<boolean>;
  /** The company's invoices, newest first. */
  invoices(tx: Transaction, companyId: string): Promise<StoredInvoice[]>;
  /** One invoice; scoped to a company unless null (operators). */
  invoice(tx: Transaction, companyId: string | null, id: string, options?: { forUpdate?: boolean }): Promise<StoredInvoice | null>;
  addInvoiceEntry(tx: Transaction, invoiceId: string, entry: StoredInvoiceEntry): Promise<void>;
  /** Claims the closing of a month once across every worker; false when it was already closed. */
  claimMonthClosing(tx: Transaction, month: string, at: Date): Promise<boolean>;
}
