import { Migration } from '@mikro-orm/migrations';

/**
 * Uncaptured pre-authorizations, by capture deadline: the authorization-expiry job's two scans
 * (findExpiringAuthorizations and findUnfinishedExpiryActions in infrastructure/persistence/payment.repository.ts)
 * read only these instead of every payment. Partial, so it holds only the payments that wait for a capture.
 *
 * Why: both scans filtered the whole payments table, once a minute on every worker. Measured on 26 Nov with
 * 26,584 payments, none of them uncaptured: 77-81 ms and 54 ms a scan, growing with the table.
 */
export class Migration20261204000100UncapturedAuthorizations extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index payments_uncaptured_authorizations on payments ((doc->>'authorizationExpiresAt')) where status = 'authorized' and captured_amount = 0`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists payments_uncaptured_authorizations');
  }
}
