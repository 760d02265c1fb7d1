import { Migration } from '@mikro-orm/migrations';

/**
 * Cheaper delivery writes, measured with pg_stat_statements under the paced fan-out (1,000 deliveries/s):
 * - `webhook_deliveries_due (next_retry_at)` is no longer read (claims go per endpoint through
 *   `webhook_deliveries_queue`), yet every delivery insert and every outcome update wrote an entry to it.
 * - A delivery's body (the event's envelope, a few kB) was kept inline, compressed, and so copied into every new
 *   version of the row: each outcome update wrote it again to the table and to the WAL (about 2 kB per update).
 *   With a lower toast target the body goes to the TOAST table once, at insert, and updates keep the pointer. The
 *   target stays above the rest of the row (request headers, last response: about 550 bytes), which would
 *   otherwise be stored out of line again by every update (seen with a target of 256).
 * - Each attempt row looked its delivery up twice: the `max(seq)` that continued the delivery's own numbering, and
 *   the foreign key check (which also locks the delivery row). Planned while the tables were nearly empty (a fresh
 *   database, or statistics taken before any delivery), both became sequential scans, and the check's plan stays
 *   cached in its connection: every attempt insert then read the whole deliveries table (seen in the bench: 280 ms
 *   per batch of 80 rows, 30 million buffer reads in 8 s). A sequence gives `seq` without a lookup (it starts above
 *   every stored value, so a delivery's attempts keep their order), and the foreign key goes: attempt rows are
 *   written only by the recorder, in the transaction that updates the very delivery they belong to, and deliveries
 *   are never deleted.
 */
export class Migration20261125000300LeanerDeliveryWrites extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      drop index if exists webhook_deliveries_due;
      alter table webhook_deliveries set (toast_tuple_target = 1024);
      alter table webhook_delivery_attempts drop constraint if exists webhook_delivery_attempts_delivery_id_fkey;
      alter table webhook_delivery_attempts alter column seq type int8;
      create sequence webhook_delivery_attempts_seq as int8 owned by webhook_delivery_attempts.seq;
      select setval('webhook_delivery_attempts_seq', coalesce((select max(seq) from webhook_delivery_attempts), 0) + 1, false);
      alter table webhook_delivery_attempts alter column seq set default nextval('webhook_delivery_attempts_seq');
    `);
  }
}
