import { Migration } from '@mikro-orm/migrations';

/**
 * `webhook_deliveries_event (event_id)` repeats the leading column of the unique index on (event_id, endpoint_id),
 * which serves every lookup by event alone as well; dropping it saves one index entry per delivery written by the
 * fan-out (ten per event with ten endpoints).
 */
export class Migration20261125000100DropRedundantDeliveryIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index if exists webhook_deliveries_event;`);
  }
}
