import { Migration } from '@mikro-orm/migrations';

/** Sequences are given by the relay (in batches), so a new event has none until it is numbered. */
export class Migration20261122009000OutboxSequencing extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table events alter column sequence drop not null;
      drop index if exists events_unpublished;
      create index events_unpublished on events (id) where published_at is null;
    `);
  }
}
