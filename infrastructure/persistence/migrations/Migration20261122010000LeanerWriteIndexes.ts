import { Migration } from '@mikro-orm/migrations';

/**
 * Fewer index entries per write. Every index is still there for the queries that need it, but partial where
 * most rows would only add entries no query looks for:
 * - a payment without customer or external id, or not yet answered by an acquirer (no nsu/tid/authorization
 *   code), adds nothing to the indexes that look those up (every lookup binds a value, which implies NOT NULL);
 * - an event enters the event-log and sequence indexes when the relay numbers it (the log only lists numbered
 *   events), not also when it is appended.
 */
export class Migration20261122010000LeanerWriteIndexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      drop index payments_customer;
      create index payments_customer on payments (organization_id, environment, customer_id) where customer_id is not null;
      drop index payments_external;
      create index payments_external on payments (organization_id, environment, external_id) where external_id is not null;
      drop index payments_references;
      create index payments_references on payments (organization_id, environment, nsu, tid, authorization_code)
        where nsu is not null or tid is not null or authorization_code is not null;
      drop index events_sequence;
      create unique index events_sequence on events (organization_id, sequence) where sequence is not null;
      drop index events_log;
      create index events_log on events (organization_id, environment, sequence desc) where sequence is not null;
    `);
  }
}
