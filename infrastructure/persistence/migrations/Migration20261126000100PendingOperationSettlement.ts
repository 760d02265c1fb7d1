import { Migration } from '@mikro-orm/migrations';

/**
 * The settlement worker's queue is the payments with a pending money operation, a handful among millions: a
 * partial index over them, ordered by when each may be taken up next, keeps its scan off the table.
 */
export class Migration20261126000100PendingOperationSettlement extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index payments_pending_operation on payments ((coalesce(operation_intent->>'settleAfter', ''))) where operation_intent is not null`,
    );
  }
}
