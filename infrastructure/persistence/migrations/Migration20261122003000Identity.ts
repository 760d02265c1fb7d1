import { Migration } from '@mikro-orm/migrations';

/** Dashboard identity (users, memberships, challenges, sessions, recovery codes, reset links) and account security. */
export class Migration20261122003000Identity extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table identity_secrets (
        name text primary key,
        value text not null,
        created_at timestamptz not null default now()
      );

      create table identity_users (
        id text primary key,
        name text not null,
        email text not null unique,
        phone text not null,
        password_hash text not null,
        totp_secret text,
        totp_confirmed_at timestamptz,
        totp_last_used_step int8,
        tokens_valid_after timestamptz not null,
        created_at timestamptz not null
      );

      create table identity_memberships (
        user_id text not null references identity_users(id),
        organization_id text not null references organizations(id),
        role text not null check (role in ('owner', 'administrator', 'developer', 'analyst')),
        created_at timestamptz not null,
        primary key (user_id, organization_id)
      );
      create index identity_memberships_organization on identity_memberships (organization_id);

      create table identity_organization_profiles (
        organization_id text primary key references organizations(id),
        document text not null,
        profile jsonb not null,
        trial_eligible boolean not null,
        created_at timestamptz not null
      );

      create table identity_trial_claims (
        claim text primary key,
        organization_id text not null references organizations(id),
        created_at timestamptz not null
      );

      create table identity_challenges (
        id text primary key,
        user_id text not null references identity_users(id),
        organization_id text not null,
        token_hash text not null unique,
        stage text not null,
        purpose text not null,
        pending_secret text,
        failures int4 not null,
        created_at timestamptz not null,
        expires_at timestamptz not null
      );

      create table identity_sessions (
        id text primary key,
        user_id text not null references identity_users(id),
        organization_id text not null,
        current_token_hash text not null,
        generation int4 not null,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        revoked_at timestamptz,
        revoked_reason text
      );
      create index identity_sessions_user on identity_sessions (user_id) where revoked_at is null;

      create table identity_recovery_codes (
        user_id text not null references identity_users(id),
        code_hash text not null,
        created_at timestamptz not null,
        used_at timestamptz,
        primary key (user_id, code_hash)
      );

      create table identity_password_resets (
        id text primary key,
        user_id text not null references identity_users(id),
        token_hash text not null unique,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        used_at timestamptz
      );

      create table security_card_attempts (
        id bigserial primary key,
        organization_id text not null,
        environment text not null,
        at timestamptz not null,
        client_ip_hash text,
        device_id_hash text,
        card_fingerprint text,
        declined boolean not null
      );
      create index security_card_attempts_ip on security_card_attempts (organization_id, environment, client_ip_hash, at);
      create index security_card_attempts_device on security_card_attempts (organization_id, environment, device_id_hash, at);

      create table security_incidents (
        id text primary key,
        organization_id text not null,
        environment text not null,
        type text not null,
        status text not null,
        blocked boolean not null,
        signal_hash text not null,
        signal jsonb not null,
        email_status text not null,
        audit jsonb not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index security_incidents_list on security_incidents (organization_id, environment, id desc);
      create index security_incidents_blocking on security_incidents (organization_id, environment, signal_hash) where blocked;
    `);
  }
}
