/**
 * Hand-written fakes of platform billing's ports: an in-memory repository whose transactions roll back on a
 * refusal (a snapshot restored), so tests can assert that a refused operation changed nothing.
 */
import type { TrialAllowance } from '../../domain/billing/free-trial';
import { parsePlanCatalog, type PlanCatalog } from '../../domain/billing/plan-catalog';
import type { Subscription } from '../../domain/billing/subscription';
import type { PlatformBillingRepository, StoredInvoice, StoredInvoiceEntry } from '../../domain/ports/platform-billing';
import type { Transaction, Transactor } from '../../domain/ports/transactor';
import type { BillingDeps } from '../../application/billing/billing-deps';
import { ManualClock } from '../../infrastructure/clock/system-clock';

interface State {
  parents: Record<string, string | null>;
  allowances: Record<string, TrialAllowance>;
  live: Array<{ organizationId: string; paymentId: string; at: Date }>;
  subscriptions: Record<string, Subscription>;
  invoices: StoredInvoice[];
  closedMonths: string[];
}

export class InMemoryBilling implements PlatformBillingRepository, Transactor {
  state: State = { parents: {}, allowances: {}, live: [], subscriptions: {}, invoices: [], closedMonths: [] };
  /** Trial start and eligibility of companies the tests register. */
  companies: Record<string, { createdAt: Date; eligible: boolean }> = {};

  company(id: string, createdAt: Date, eligible = true): void {
    this.state.parents[id] = null;
    this.companies[id] = { createdAt, eligible };
  }

  brand(id: string, companyId: string): void {
    this.state.parents[id] = companyId;
  }

  async run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const snapshot = structuredClone(this.state);
    try {
      return await work({} as Transaction);
    } catch (error) {
      this.state = snapshot;
      throw error;
    }
  }

  read<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return work({} as Transaction);
  }

  async companyOf(_tx: Transaction, organizationId: string) {
    if (!(organizationId in this.state.parents)) return null;
    return this.state.parents[organizationId] ?? organizationId;
  }

  async allowance(_tx: Transaction, companyId: string) {
    const company = this.companies[companyId]!;
    this.state.allowances[companyId] ??= { eligible: company.eligible, startedAt: company.createdAt, paymentsUsed: 0 };
    return this.state.allowances[companyId]!;
  }

  async takeTrialPayment(_tx: Transaction, companyId: string, limit: number) {
    const allowance = this.state.allowances[companyId]!;
    if (allowance.paymentsUsed >= limit) return false;
    this.state.allowances[companyId] = { ...allowance, paymentsUsed: allowance.paymentsUsed + 1 };
    return true;
  }

  async recordLivePayment(_tx: Transaction, organizationId: string, paymentId: string, at: Date) {
    if (this.state.live.some((p) => p.paymentId === paymentId)) return false;
    this.state.live.push({ organizationId, paymentId, at });
    return true;
  }

  async livePayments(tx: Transaction, companyId: string, from: Date, to: Date) {
    const members = await Promise.all(this.state.live.map(async (p) => (await this.companyOf(tx, p.organizationId)) === companyId));
    return this.state.live.filter((p, i) => members[i] && p.at >= from && p.at < to).length;
  }

  async sandboxPayments() {
    return 0;
  }

  async subscription(_tx: Transaction, companyId: string) {
    return this.state.subscriptions[companyId] ?? null;
  }

  async insertSubscription(_tx: Transaction, subscription: Subscription) {
    if (this.state.subscriptions[subscription.companyId]) return false;
    this.state.subscriptions[subscription.companyId] = subscription;
    return true;
  }

  async releaseProduction(_tx: Transaction, companyId: string, at: Date) {
    const current = this.state.subscriptions[companyId]!;
    this.state.subscriptions[companyId] = { ...current, productionReleasedAt: current.productionReleasedAt ?? at };
  }

  async subscriptionsStartedBefore(_tx: Transaction, before: Date) {
    return Object.values(this.state.subscriptions).filter((s) => s.startedAt < before);
  }

  async insertInvoice(_tx: Transaction, invoice: StoredInvoice) {
    if (invoice.kind === 'monthly' && this.state.invoices.some((i) => i.companyId === invoice.companyId && i.month === invoice.month)) return false;
    this.state.invoices.push(invoice);
    return true;
  }

  async invoices(_tx: Transaction, companyId: string) {
    return this.state.invoices.filter((i) => i.companyId === companyId).reverse();
  }

  async invoice(_tx: Transaction, companyId: string | null, id: string) {
    return this.state.invoices.find((i) => i.id === id && (companyId === null || i.companyId === companyId)) ?? null;
  }

  async addInvoiceEntry(_tx: Transaction, invoiceId: string, entry: StoredInvoiceEntry) {
    this.state.invoices = this.state.invoices.map((i) => (i.id === invoiceId ? { ...i, entries: [...i.entries, entry] } : i));
  }

  async claimMonthClosing(_tx: Transaction, month: string) {
    if (this.state.closedMonths.includes(month)) return false;
    this.state.closedMonths.push(month);
    return true;
  }
}

export const TEST_CATALOG: PlanCatalog = parsePlanCatalog({
  version: 4,
  currency: 'BRL',
  plans: [{ code: 'starter', name: 'Starter', monthlyFeeCents: 9900, includedPayments: 2, perPaymentCents: 25 }],
  paymentInstructions: { beneficiary: 'Platform Ltda', pixKey: 'billing@platform.example' },
});

export function billingFakes(now = new Date('2026-03-01T15:00:00Z')) {
  const billing = new InMemoryBilling();
  const clock = new ManualClock(now);
  let next = 0;
  const deps: BillingDeps = { transactor: billing, clock, ids: { next: (prefix) => `${prefix}${++next}` }, billing, catalog: TEST_CATALOG, timeZone: 'America/Sao_Paulo' };
  return { billing, clock, deps };
}
