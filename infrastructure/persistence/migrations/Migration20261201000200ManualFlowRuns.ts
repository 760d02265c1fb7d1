import { Migration } from '@mikro-orm/migrations';

/** Runs of manual flows (POST /v1/flows/{id}/run), read back by id (docs/flows.md, "Manual runs"). */
export class Migration20261201000200ManualFlowRuns extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table manual_flow_runs (
      id text primary key,
      organization_id text not null,
      environment text not null,
      flow_id text not null,
      payment_id text,
      doc jsonb not null,
      created_at timestamptz not null
    )`);
  }
}
