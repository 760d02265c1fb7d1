import { Migration } from '@mikro-orm/migrations';

/**
 * Flows and their published versions. A flow's draft lives in `doc`; each publish stores an immutable version
 * with the accounts it names (usedByFlows and the connector-account deletion rule search them). At most one flow
 * per environment and trigger event is active, which the partial unique index holds even against a bug.
 */
export class Migration20261126000200Flows extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table flows (
      id text primary key,
      organization_id text not null,
      environment text not null,
      name text not null,
      trigger_event text not null,
      status text not null,
      active boolean not null default false,
      published_version int,
      doc jsonb not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`);
    this.addSql(`create index flows_by_tenant on flows (organization_id, environment, id desc)`);
    this.addSql(`create unique index flows_one_active on flows (organization_id, environment, trigger_event) where active`);
    this.addSql(`create table flow_versions (
      flow_id text not null references flows (id) on delete cascade,
      version int not null,
      organization_id text not null,
      environment text not null,
      trigger_event text not null,
      graph jsonb not null,
      account_ids text[] not null,
      published_at timestamptz not null,
      primary key (flow_id, version)
    )`);
  }
}
