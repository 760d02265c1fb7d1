import { Migration } from '@mikro-orm/migrations';

/**
 * Transparent checkout payments awaiting a card, by deadline: the expiry job claims those whose deadline passed
 * (infrastructure/persistence/checkout-payments.repository.ts) without scanning every payment. Partial, so it holds
 * only the few payments that wait for a buyer.
 */
export class Migration20261129000100CheckoutExpiry extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index payments_checkout_expiry on payments ((doc->'checkout'->>'expiresAt')) where status = 'requires_payment_method'`);
  }
}
