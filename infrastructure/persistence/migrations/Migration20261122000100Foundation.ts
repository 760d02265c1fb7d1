import { Migration } from '@mikro-orm/migrations';

/** Tenancy, API keys, the transactional outbox, consumer deduplication, idempotency keys and rate limits. */
export class Migration20261122000100Foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table organizations (
        id text primary key,
        name text not null,
        parent_organization_id text references organizations(id),
        created_at timestamptz not null default now()
      );

      create table api_keys (
        id text primary key,
        organization_id text not null references organizations(id),
        environment text not null check (environment in ('sandbox', 'live')),
        name text not null,
        scopes text[] not null,
        secret_hash text not null unique,
        last4 text not null,
        created_at timestamptz not null,
        revoked_at timestamptz
      );
      create index api_keys_organization on api_keys (organization_id, environment);

      create table organization_sequences (
        organization_id text primary key,
        last_value int8 not null
      );

      create table events (
        id text primary key,
        organization_id text not null,
        environment text not null,
        type text not null,
        api_version text not null,
        sequence int8 not null,
        object_type text not null,
        object_id text not null,
        data jsonb not null,
        created_at timestamptz not null,
        published_at timestamptz,
        relay_lease_until timestamptz
      );
      create unique index events_sequence on events (organization_id, sequence);
      create index events_log on events (organization_id, environment, sequence desc);
      create index events_object on events (organization_id, environment, object_id);
      create index events_unpublished on events (sequence) where published_at is null;

      create table processed_events (
        consumer text not null,
        event_id text not null,
        processed_at timestamptz not null default now(),
        primary key (consumer, event_id)
      );

      create table idempotency_keys (
        organization_id text not null,
        environment text not null,
        route text not null,
        key text not null,
        request_hash text not null,
        state text not null check (state in ('in_flight', 'completed')),
        response_status int4,
        response_body jsonb,
        response_headers jsonb,
        created_at timestamptz not null,
        locked_until timestamptz not null,
        expires_at timestamptz not null,
        primary key (organization_id, environment, route, key)
      );
      create index idempotency_keys_expiry on idempotency_keys (expires_at);

      create table rate_limits (
        key varchar(255) primary key,
        points integer not null default 0,
        expire bigint
      );
    `);
  }
}
