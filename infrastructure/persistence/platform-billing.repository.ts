import type { TrialAllowance } from '../../domain/billing/free-trial';
import type { BillingInterval, Plan } from '../../domain/billing/plan-catalog';
import type { InvoiceLine, Subscription } from '../../domain/billing/subscription';
import type { InvoiceKind, PlatformBillingRepository, StoredInvoice, StoredInvoiceEntry } from '../../domain/ports/platform-billing';
import type { Transaction } from '../../domain/ports/transactor';
import { entityManager } from './mikro-orm-transactor';

const parse = <T>(doc: unknown): T => (typeof doc === 'string' ? JSON.parse(doc) : doc) as T;
const date = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));
const optionalDate = (value: unknown): Date | null => (value === null || value === undefined ? null : date(value));

/** The organizations billed together: the company and its brands. */
const COMPANY_ORGANIZATIONS = `(select id from organizations where id = ? or parent_organization_id = ?)`;

interface SubscriptionRow {
  company_id: string;
  plan: unknown;
  catalog_version: number;
  billing_interval: BillingInterval;
  accepted_by: string;
  started_at: unknown;
  paid_through: unknown;
  production_released_at: unknown;
  prepaid_invoice_id: string | null;
}

interface InvoiceRow {
  id: string;
  company_id: string;
  kind: InvoiceKind;
  month: string | null;
  currency: string;
  lines: unknown;
  total_cents: number;
  issued_at: unknown;
  due_at: unknown;
}

interface EntryRow {
  id: string;
  invoice_id: string;
  kind: 'receipt' | 'adjustment';
  amount_cents: number;
  note: string;
  recorded_at: unknown;
}

function subscriptionOf(row: SubscriptionRow): Subscription {
  return {
    companyId: row.company_id,
    plan: parse<Plan>(row.plan),
    catalogVersion: Number(row.catalog_version),
    interval: row.billing_interval,
    acceptedBy: row.accepted_by,
    startedAt: date(row.started_at),
    paidThrough: optionalDate(row.paid_through),
    productionReleasedAt: optionalDate(row.production_released_at),
    prepaidInvoiceId: row.prepaid_invoice_id,
  };
}

export class SqlPlatformBillingRepository implements PlatformBillingRepository {
  async companyOf(tx: Transaction, organizationId: string): Promise<string | null> {
    const rows = await entityManager(tx).execute<Array<{ company_id: string }>>(
      `select coalesce(parent_organization_id, id) as company_id from organizations where id = ?`,
      [organizationId],
    );
    return rows[0]?.company_id ?? null;
  }

  async allowance(tx: Transaction, companyId: string): Promise<TrialAllowance> {
    // Created on first use from the registration: the trial starts when the company did, and a company whose
    // document or e-mail already had a trial (identity's trial claims) is not eligible. Without a profile (an
    // organization the operators' CLI created) the company is eligible.
    await entityManager(tx).execute(
      `insert into billing_trial_allowances (company_id, eligible, started_at, payments_used)
       select o.id, coalesce(p.trial_eligible, true), o.created_at, 0
         from organizations o left join identity_organization_profiles p on p.organization_id = o.id
        where o.id = ?
       on conflict (company_id) do nothing`,
      [companyId],
    );
    const rows = await entityManager(tx).execute<Array<{ eligible: boolean; started_at: unknown; payments_used: number }>>(
      `select eligible, started_at, payments_used from billing_trial_allowances where company_id = ?`,
      [companyId],
    );
    const row = rows[0];
    if (!row) throw new Error(`organization ${companyId} has no trial allowance (unknown organization)`);
    return { eligible: Boolean(row.eligible), startedAt: date(row.started_at), paymentsUsed: Number(row.payments_used) };
  }

  async takeTrialPayment(tx: Transaction, companyId: string, limit: number): Promise<boolean> {
    // One statement: the row lock makes a concurrent taker wait, then re-check the condition on the committed count.
    const rows = await entityManager(tx).execute<Array<{ payments_used: number }>>(
      `update billing_trial_allowances set payments_used = payments_used + 1 where company_id = ? and payments_used < ? returning payments_used`,
      [companyId, limit],
    );
    return rows.length === 1;
  }

  async recordLivePayment(tx: Transaction, organizationId: string, paymentId: string, at: Date): Promise<boolean> {
    const rows = await entityManager(tx).execute<Array<{ payment_id: string }>>(
      `insert into production_payment_usage (organization_id, payment_id, created_at) values (?, ?, ?) on conflict do nothing returning payment_id`,
      [organizationId, paymentId, at],
    );
    return rows.length === 1;
  }

  async livePayments(tx: Transaction, companyId: string, from: Date, to: Date): Promise<number> {
    const rows = await entityManager(tx).execute<Array<{ n: number }>>(
      `select count(*)::int8 as n from production_payment_usage where organization_id in ${COMPANY_ORGANIZATIONS} and created_at >= ? and created_at < ?`,
      [companyId, companyId, from, to],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async sandboxPayments(tx: Transaction, companyId: string, from: Date, to: Date): Promise<number> {
    const rows = await entityManager(tx).execute<Array<{ n: number }>>(
      `select count(*)::int8 as n from payments where organization_id in ${COMPANY_ORGANIZATIONS} and environment = 'sandbox' and created_at >= ? and created_at < ?`,
      [companyId, companyId, from, to],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async subscription(tx: Transaction, companyId: string, options: { forUpdate?: boolean } = {}): Promise<Subscription | null> {
    const rows = await entityManager(tx).execute<SubscriptionRow[]>(
      `select * from billing_subscriptions where company_id = ?${options.forUpdate ? ' for update' : ''}`,
      [companyId],
    );
    return rows[0] ? subscriptionOf(rows[0]) : null;
  }

  async insertSubscription(tx: Transaction, s: Subscription): Promise<boolean> {
    const rows = await entityManager(tx).execute<Array<{ company_id: string }>>(
      `insert into billing_subscriptions (company_id, plan, catalog_version, billing_interval, accepted_by, started_at, paid_through, production_released_at, prepaid_invoice_id)
       values (?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?) on conflict (company_id) do nothing returning company_id`,
      [s.companyId, JSON.stringify(s.plan), s.catalogVersion, s.interval, s.acceptedBy, s.startedAt, s.paidThrough, s.productionReleasedAt, s.prepaidInvoiceId],
    );
    return rows.length === 1;
  }

  async releaseProduction(tx: Transaction, companyId: string, at: Date): Promise<void> {
    await entityManager(tx).execute(
      `update billing_subscriptions set production_released_at = ? where company_id = ? and production_released_at is null`,
      [at, companyId],
    );
  }

  async subscriptionsStartedBefore(tx: Transaction, before: Date): Promise<Subscription[]> {
    const rows = await entityManager(tx).execute<SubscriptionRow[]>(
      `select * from billing_subscriptions where started_at < ? order by company_id`,
      [before],
    );
    return rows.map(subscriptionOf);
  }

  async insertInvoice(tx: Transaction, invoice: StoredInvoice): Promise<boolean> {
    const rows = await entityManager(tx).execute<Array<{ id: string }>>(
      `insert into billing_invoices (id, company_id, kind, month, currency, lines, total_cents, issued_at, due_at)
       values (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?) on conflict do nothing returning id`,
      [invoice.id, invoice.companyId, invoice.kind, invoice.month, invoice.currency, JSON.stringify(invoice.lines), invoice.totalCents, invoice.issuedAt, invoice.dueAt],
    );
    return rows.length === 1;
  }

  async invoices(tx: Transaction, companyId: string): Promise<StoredInvoice[]> {
    const rows = await entityManager(tx).execute<InvoiceRow[]>(
      `select * from billing_invoices where company_id = ? order by issued_at desc, id desc limit 200`,
      [companyId],
    );
    return this.withEntries(tx, rows);
  }

  async invoice(tx: Transaction, companyId: string | null, id: string, options: { forUpdate?: boolean } = {}): Promise<StoredInvoice | null> {
    const rows = await entityManager(tx).execute<InvoiceRow[]>(
      `select * from billing_invoices where id = ?${companyId === null ? '' : ' and company_id = ?'}${options.forUpdate ? ' for update' : ''}`,
      companyId === null ? [id] : [id, companyId],
    );
    return (await this.withEntries(tx, rows))[0] ?? null;
  }

  async addInvoiceEntry(tx: Transaction, invoiceId: string, entry: StoredInvoiceEntry): Promise<void> {
    await entityManager(tx).execute(
      `insert into billing_invoice_entries (id, invoice_id, kind, amount_cents, note, recorded_at) values (?, ?, ?, ?, ?, ?)`,
      [entry.id, invoiceId, entry.kind, entry.amountCents, entry.note, entry.recordedAt],
    );
  }

  async claimMonthClosing(tx: Transaction, month: string, at: Date): Promise<boolean> {
    const rows = await entityManager(tx).execute<Array<{ month: string }>>(
      `insert into billing_month_closings (month, closed_at) values (?, ?) on conflict do nothing returning month`,
      [month, at],
    );
    return rows.length === 1;
  }

  private async withEntries(tx: Transaction, rows: InvoiceRow[]): Promise<StoredInvoice[]> {
    if (rows.length === 0) return [];
    const entries = await entityManager(tx).execute<EntryRow[]>(
      `select * from billing_invoice_entries where invoice_id in (select jsonb_array_elements_text(?::jsonb)) order by recorded_at, id`,
      [JSON.stringify(rows.map((row) => row.id))],
    );
    return rows.map((row) => ({
      id: row.id,
      companyId: row.company_id,
      kind: row.kind,
      month: row.month,
      currency: row.currency,
      lines: parse<InvoiceLine[]>(row.lines),
      totalCents: Number(row.total_cents),
      issuedAt: date(row.issued_at),
      dueAt: date(row.due_at),
      entries: entries
        .filter((entry) => entry.invoice_id === row.id)
        .map((entry) => ({ id: entry.id, kind: entry.kind, amountCents: Number(entry.amount_cents), note: entry.note, recordedAt: date(entry.recorded_at) })),
    }));
  }
}
