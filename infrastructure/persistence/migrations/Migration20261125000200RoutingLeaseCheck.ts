import { Migration } from '@mikro-orm/migrations';
import { countGuardFunction } from './count-guard-function';

/**
 * `routing_lease_held(n)`: true when `n` is 1, else it raises SQLSTATE PL001 ("routing lease lost"). A request's tx2
 * queues its lease check with its writes and sends them in one round trip; when the lease was taken over the check
 * fails, and PostgreSQL rolls the whole unit back (nothing recorded), which the request then learns from the error.
 */
export class Migration20261125000200RoutingLeaseCheck extends Migration {
  override async up(): Promise<void> {
    this.addSql(countGuardFunction('routing_lease_held', 'routing lease lost', 'PL001'));
  }
}
