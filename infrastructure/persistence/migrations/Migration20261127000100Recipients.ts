import { Migration } from '@mikro-orm/migrations';

/**
 * Split recipients (rcp_). As for customers, the row keeps the whole aggregate in `doc` (jsonb), written from it on
 * every save; the columns are what lookups by id and the newest-first list need.
 */
export class Migration20261127000100Recipients extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table recipients (
      id text primary key,
      organization_id text not null,
      environment text not null check (environment in ('sandbox', 'live')),
      doc jsonb not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`);
    this.addSql(`create index recipients_scope on recipients (organization_id, environment, id desc)`);
  }
}
