import { Migration } from '@mikro-orm/migrations';

/**
 * Payments, customers, saved payment methods and the production usage counter. A payment row keeps the whole
 * aggregate in `doc` (jsonb) plus the columns lists, filters, search and the summary need; the columns are
 * written from the aggregate on every save, never edited alone.
 */
export class Migration20261122005000Payments extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table customers (
        id text primary key,
        organization_id text not null,
        environment text not null check (environment in ('sandbox', 'live')),
        name text not null,
        email text,
        document text,
        doc jsonb not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index customers_scope on customers (organization_id, environment, id desc);
      create index customers_email on customers (organization_id, environment, email);

      create table payment_methods (
        id text primary key,
        organization_id text not null,
        environment text not null check (environment in ('sandbox', 'live')),
        customer_id text not null references customers(id),
        doc jsonb not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        deleted_at timestamptz
      );
      create index payment_methods_customer on payment_methods (organization_id, environment, customer_id) where deleted_at is null;

      create table payments (
        id text primary key,
        organization_id text not null,
        environment text not null check (environment in ('sandbox', 'live')),
        status text not null,
        amount int8 not null,
        currency text not null,
        method_type text not null,
        capture_method text not null,
        captured_amount int8 not null default 0,
        refunded_amount int8 not null default 0,
        initiator text not null,
        card_brand text,
        card_last4 text,
        nsu text,
        tid text,
        authorization_code text,
        customer_id text,
        connector_account_id text,
        connector_slug text,
        decline_reason text,
        attempt_count int4 not null default 0,
        external_id text,
        description text,
        doc jsonb not null,
        operation_claim_id text,
        operation_claim_until timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index payments_scope on payments (organization_id, environment, id desc);
      create index payments_scope_created on payments (organization_id, environment, created_at);
      create index payments_external on payments (organization_id, environment, external_id);
      create index payments_references on payments (organization_id, environment, nsu, tid, authorization_code);
      create index payments_customer on payments (organization_id, environment, customer_id);

      create table production_payment_usage (
        organization_id text not null,
        payment_id text not null,
        created_at timestamptz not null,
        primary key (organization_id, payment_id)
      );
      create index production_payment_usage_window on production_payment_usage (organization_id, created_at);
    `);
  }
}
