import { Migration } from '@mikro-orm/migrations';

/**
 * The money operation (capture, void, refund) a payment's claim is for, kept until its outcome is recorded: an
 * acquirer call that ended without an answer is then repeated under the same id (the acquirer's idempotency key)
 * instead of being sent again as a new operation.
 */
export class Migration20261125000400OperationIntents extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table payments add column operation_intent jsonb');
  }
}
