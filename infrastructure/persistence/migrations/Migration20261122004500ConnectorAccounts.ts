import { Migration } from '@mikro-orm/migrations';

/**
 * Connector accounts with their credentials sealed (AES-256-GCM; the key id is kept per row so the key can
 * rotate) and the health history shown on reads (verifications and recent call outcomes). Deleted accounts are
 * kept (deleted_at) so past payments still name them.
 */
export class Migration20261122004500ConnectorAccounts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table connector_accounts (
        id text primary key,
        organization_id text not null,
        environment text not null check (environment in ('sandbox', 'live')),
        connector_slug text not null,
        kind text not null check (kind in ('acquirer', 'antifraud')),
        name text not null,
        credentials_key_id text not null,
        credentials_ciphertext text not null,
        config jsonb not null,
        cost_basis_points int4 check (cost_basis_points between 0 and 10000),
        enabled boolean not null,
        webhook_token text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        deleted_at timestamptz
      );
      create index connector_accounts_scope on connector_accounts (organization_id, environment, created_at) where deleted_at is null;

      create table connector_account_health (
        id bigserial primary key,
        account_id text not null references connector_accounts(id),
        kind text not null check (kind in ('verification', 'call')),
        result text not null,
        operation text,
        message text,
        latency_ms int4,
        occurred_at timestamptz not null
      );
      create index connector_account_health_account on connector_account_health (account_id, kind, id desc);
    `);
  }
}
