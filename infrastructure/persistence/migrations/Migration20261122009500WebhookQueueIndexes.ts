import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes for the delivery dispatcher's per-endpoint claim: queued deliveries by endpoint in due order, and the
 * few rows holding a lease (cleared when an attempt is recorded), so a claim costs one probe per endpoint with
 * queued work instead of a sort of the whole backlog.
 */
export class Migration20261122009500WebhookQueueIndexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index webhook_deliveries_queue on webhook_deliveries (endpoint_id, next_retry_at) where status in ('pending', 'failed');
      create index webhook_deliveries_leased on webhook_deliveries (endpoint_id) where lease_until is not null;
    `);
  }
}
