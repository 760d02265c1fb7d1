import { Migration } from '@mikro-orm/migrations';

/**
 * The Idempotency-Key a payment was created under, written in the payment's first transaction. When the process
 * that created it dies before answering, the edge lets a repetition take the key over once its lock runs out; the
 * repetition then finds the payment here and answers it, instead of creating (and charging) a second one.
 */
export class Migration20261127000200PaymentIdempotencyKeys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table payment_idempotency_keys (
      organization_id text not null,
      environment text not null,
      key text not null,
      payment_id text not null,
      created_at timestamptz not null,
      primary key (organization_id, environment, key)
    )`);
  }
}
