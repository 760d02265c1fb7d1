import { Migration } from '@mikro-orm/migrations';

/**
 * Crash recovery of card authorizations (docs/payments.md, "Recovery and reconciliation").
 *
 * `payment_routings`: one row per payment whose routing is in flight, written with the payment (tx1) and deleted
 * by the transaction that records the outcome (tx2). It holds what a recovery needs to re-send Authorize with the
 * same idempotency keys: the request (without credentials), the ranked account ids, and every attempt intent
 * (attempt id + account) written BEFORE its connector call. The lease (owner + until) says who may finish the
 * payment: the request that created it, or a recovery worker once the lease expired.
 *
 * `payment_reconciliations`: attempts whose outcome stayed unknown (timeouts) on a payment decided otherwise;
 * a worker re-sends their Authorize with the same key and reverses an authorization it finds.
 */
export class Migration20261122009800PaymentRecovery extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table payment_routings (
        payment_id text primary key,
        organization_id text not null,
        environment text not null,
        request jsonb not null,
        account_ids jsonb not null,
        intents jsonb not null,
        lease_owner text not null,
        lease_until timestamptz not null,
        recoveries int4 not null default 0,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index payment_routings_lease on payment_routings (lease_until);

      create table payment_reconciliations (
        attempt_id text primary key,
        payment_id text not null,
        organization_id text not null,
        environment text not null,
        connector_account_id text not null,
        request jsonb not null,
        reversal_key text not null,
        status text not null,
        tries int4 not null default 0,
        next_at timestamptz not null,
        lease_owner text,
        lease_until timestamptz,
        detail jsonb,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index payment_reconciliations_due on payment_reconciliations (next_at) where status = 'pending';
      create index payment_reconciliations_payment on payment_reconciliations (payment_id);
    `);
  }
}
