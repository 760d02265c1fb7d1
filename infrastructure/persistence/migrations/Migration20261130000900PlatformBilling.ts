import { Migration } from '@mikro-orm/migrations';

/**
 * Platform billing (docs/billing.md): each company's free-trial allowance (its count updated conditionally, so
 * concurrent live payments never take more than the trial holds), its plan at the prices it accepted, invoices with
 * their lines, receipts and adjustments, and the months already closed (a month closes once across workers).
 */
export class Migration20261130000900PlatformBilling extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table billing_trial_allowances (
        company_id text primary key,
        eligible boolean not null,
        started_at timestamptz not null,
        payments_used int4 not null default 0
      );

      create table billing_subscriptions (
        company_id text primary key,
        plan jsonb not null,
        catalog_version int4 not null,
        billing_interval text not null check (billing_interval in ('monthly', 'annual')),
        accepted_by text not null,
        started_at timestamptz not null,
        paid_through timestamptz,
        production_released_at timestamptz,
        prepaid_invoice_id text
      );
      create index billing_subscriptions_started on billing_subscriptions (started_at);

      create table billing_invoices (
        id text primary key,
        company_id text not null,
        kind text not null check (kind in ('monthly', 'annual_prepaid')),
        month text,
        currency text not null,
        lines jsonb not null,
        total_cents int8 not null,
        issued_at timestamptz not null,
        due_at timestamptz not null
      );
      create unique index billing_invoices_company_month on billing_invoices (company_id, month) where kind = 'monthly';
      create index billing_invoices_company on billing_invoices (company_id, issued_at desc, id desc);

      create table billing_invoice_entries (
        id text primary key,
        invoice_id text not null references billing_invoices(id),
        kind text not null check (kind in ('receipt', 'adjustment')),
        amount_cents int8 not null,
        note text not null,
        recorded_at timestamptz not null
      );
      create index billing_invoice_entries_invoice on billing_invoice_entries (invoice_id, recorded_at);

      create table billing_month_closings (
        month text primary key,
        closed_at timestamptz not null
      );
    `);
  }
}
