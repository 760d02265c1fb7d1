import { Migration } from '@mikro-orm/migrations';

/**
 * Flow runs waiting for a 3DS result, a review decision, a bank notice or a timer (domain/ports/flow-run-waits.ts):
 * one row per waiting payment, with the request the run will send when it goes on, and the moment the wait falls
 * due, claimed by one worker at a time (lease_owner, lease_until).
 */
export class Migration20261128000300FlowRunWaits extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table flow_run_waits (
      payment_id text primary key,
      organization_id text not null,
      environment text not null,
      kind text not null,
      node_id text not null,
      due_at timestamptz,
      request jsonb not null,
      lease_owner text,
      lease_until timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`);
    this.addSql(`create index flow_run_waits_due on flow_run_waits (due_at) where due_at is not null`);
  }
}
