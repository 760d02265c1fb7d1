import { Migration } from '@mikro-orm/migrations';

/**
 * The brand retry counts (domain/ports/card-retry-counts.ts): one row per card fingerprint, brand, merchant
 * (organization and environment), amount, kind of attempt and hour, counted up by concurrent upserts. Rows older
 * than the longest brand window (30 days) are no longer read and are deleted as new ones are counted.
 */
export class Migration20261130000100CardRetryCounts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table card_retry_counts (
      organization_id text not null,
      environment text not null,
      network text not null,
      card_fingerprint text not null,
      amount bigint not null,
      kind text not null,
      hour timestamptz not null,
      count integer not null,
      primary key (organization_id, environment, network, card_fingerprint, hour, amount, kind)
    )`);
    this.addSql(`create index card_retry_counts_hour on card_retry_counts (hour)`);
  }
}
