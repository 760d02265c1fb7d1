import { Migration } from '@mikro-orm/migrations';

/**
 * Pix and boleto payments by the charge the bank knows them by: an inbound notice cites the acquirer's charge id, and
 * its payment is found without scanning every payment. Partial, so it holds only bank charges.
 */
export class Migration20261130000200BankChargeLookup extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index payments_bank_charge on payments (connector_account_id, (doc->'acquirer'->>'acquirerPaymentId')) where method_type in ('pix', 'boleto')`,
    );
  }
}
