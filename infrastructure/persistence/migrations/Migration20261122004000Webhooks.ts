import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook endpoints, deliveries and their attempts. A delivery is unique per (event, endpoint) so a redelivered
 * event never creates a second one. Deliveries carry a lease (owner + until) taken with FOR UPDATE SKIP LOCKED,
 * so several workers never send the same delivery at once and a killed worker's lease simply expires.
 */
export class Migration20261122004000Webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table webhook_endpoints (
        id text primary key,
        organization_id text not null,
        environment text not null check (environment in ('sandbox', 'live')),
        url text not null,
        description text,
        enabled_events jsonb not null,
        custom_headers jsonb not null,
        status text not null check (status in ('active', 'failing', 'disabled', 'auto_disabled')),
        consecutive_failures int4 not null default 0,
        disabled_reason text,
        secret text not null,
        previous_secret text,
        previous_secret_expires_at timestamptz,
        last_success_at timestamptz,
        last_attempt_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        deleted_at timestamptz
      );
      create unique index webhook_endpoints_url on webhook_endpoints (organization_id, environment, url) where deleted_at is null;
      create index webhook_endpoints_scope on webhook_endpoints (organization_id, environment, id) where deleted_at is null;

      create table webhook_deliveries (
        id text primary key,
        organization_id text not null,
        environment text not null,
        endpoint_id text not null references webhook_endpoints(id),
        event_id text not null,
        event_type text not null,
        body text not null,
        request_headers jsonb,
        status text not null check (status in ('pending', 'succeeded', 'failed', 'exhausted', 'disabled')),
        attempts int4 not null default 0,
        next_retry_at timestamptz,
        last_response jsonb,
        is_test boolean not null default false,
        lease_owner text,
        lease_until timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create unique index webhook_deliveries_event_endpoint on webhook_deliveries (event_id, endpoint_id);
      create index webhook_deliveries_due on webhook_deliveries (next_retry_at) where status in ('pending', 'failed');
      create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, id desc);
      create index webhook_deliveries_event on webhook_deliveries (event_id);
      create index webhook_deliveries_scope_created on webhook_deliveries (organization_id, environment, created_at);

      create table webhook_delivery_attempts (
        delivery_id text not null references webhook_deliveries(id),
        seq int4 not null,
        endpoint_id text not null,
        organization_id text not null,
        environment text not null,
        number int4 not null,
        started_at timestamptz not null,
        duration_ms int4 not null,
        response_status int4,
        succeeded boolean not null,
        error text,
        is_test boolean not null default false,
        primary key (delivery_id, seq)
      );
      create index webhook_delivery_attempts_endpoint on webhook_delivery_attempts (endpoint_id, started_at);
      create index webhook_delivery_attempts_scope on webhook_delivery_attempts (organization_id, environment, started_at);
    `);
  }
}
