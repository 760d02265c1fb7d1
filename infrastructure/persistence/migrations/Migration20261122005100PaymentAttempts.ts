import { Migration } from '@mikro-orm/migrations';

/** Asynchronous connector reports find a payment by one of its attempt ids (their idempotency key). */
export class Migration20261122005100PaymentAttempts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index payments_attempts on payments using gin ((doc->'attempts') jsonb_path_ops);`);
  }
}
