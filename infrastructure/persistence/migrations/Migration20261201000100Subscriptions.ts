import { Migration } from '@mikro-orm/migrations';

/**
 * Subscriptions (contract.md 4). The row is also the renewal job: `next_charge_at` is when it is due, and a worker
 * takes it with a lease (`lease_owner`, `lease_until`) so one renewal runs once across workers; the partial index
 * keeps the due scan small (canceled subscriptions have no next charge).
 */
export class Migration20261201000100Subscriptions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table subscriptions (
      id text primary key,
      organization_id text not null,
      environment text not null,
      customer_id text not null,
      status text not null,
      next_charge_at timestamptz,
      lease_owner text,
      lease_until timestamptz,
      doc jsonb not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`);
    this.addSql(`create index subscriptions_tenant on subscriptions (organization_id, environment, id desc)`);
    this.addSql(`create index subscriptions_due on subscriptions (next_charge_at) where next_charge_at is not null`);
  }
}
