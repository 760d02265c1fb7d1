import { Migration } from '@mikro-orm/migrations';
import { countGuardFunction } from './count-guard-function';

/**
 * `payment_unchanged(n)`: true when `n` is 1, else it raises SQLSTATE PL002 ("payment changed since read"). A guarded
 * payment update (the checkout confirm's tx1) counts the rows it changed, under a condition on what the request read,
 * and queues this check with its other writes in one round trip: when another request changed the payment meanwhile
 * the check fails, PostgreSQL rolls the whole unit back (routing record and events too), and the request learns it from
 * the error. The sibling of routing_lease_held (Migration20261125000200RoutingLeaseCheck, the same shape:
 * count-guard-function.ts), with its own SQLSTATE so each is recognized apart.
 */
export class Migration20261202000100PaymentWriteGuard extends Migration {
  override async up(): Promise<void> {
    this.addSql(countGuardFunction('payment_unchanged', 'payment changed since read', 'PL002'));
  }

  override async down(): Promise<void> {
    this.addSql('drop function if exists payment_unchanged(bigint)');
  }
}
