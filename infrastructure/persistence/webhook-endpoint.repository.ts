import { tenantChangeKey } from '../../domain/ports/change-feed';
import type { CredentialCipher } from '../../domain/ports/credential-cipher';
import type { Transaction } from '../../domain/ports/transactor';
import type { WebhookEndpointRepository } from '../../domain/ports/webhook-repositories';
import { DomainError } from '../../domain/shared/domain-error';
import type { Environment, TenantScope } from '../../domain/shared/environment';
import { WebhookEndpoint, type WebhookEndpointState } from '../../domain/webhook/webhook-endpoint';
import type { EndpointStatus } from '../../domain/webhook/webhook-endpoint.transitions';
import type { CustomHeaders } from '../../domain/webhook/custom-headers';
import { isSealedText, openSealedText, sealText } from '../crypto/sealed-text';
import { announceChange, deferWrite, entityManager } from './mikro-orm-transactor';

export interface EndpointRow {
  id: string;
  organization_id: string;
  environment: Environment;
  url: string;
  description: string | null;
  enabled_events: string[];
  custom_headers: Record<string, string>;
  status: EndpointStatus;
  consecutive_failures: number;
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  last_success_at: Date | null;
  last_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

const date = (v: Date | string | null): Date | null => (v === null ? null : new Date(v));

/**
 * Endpoint secrets must stay usable for HMAC, so they are encrypted (AES-256-GCM, the credentials key) rather
 * than hashed, bound to the endpoint id. Extra header values are sealed the same way, one by one, each bound to its
 * endpoint and header name: receivers put credentials there (a bearer token), deliveries need them in clear, and
 * the names stay readable. Without a cipher (tests of other rules) values are stored as is.
 */
export class EndpointSecretSealer {
  constructor(private readonly cipher: CredentialCipher | null) {}

  seal(endpointId: string, secret: string | null): string | null {
    if (secret === null || this.cipher === null) return secret;
    return sealText(this.cipher, secret, secretContext(endpointId));
  }

  open(endpointId: string, stored: string | null): string | null {
    if (stored === null || !isSealedText(stored)) return stored;
    return openSealedText(this.cipher, stored, secretContext(endpointId));
  }

  sealHeaders(endpointId: string, headers: CustomHeaders): CustomHeaders {
    const cipher = this.cipher;
    if (cipher === null) return headers;
    return mapValues(headers, (name, value) => sealText(cipher, value, headerContext(endpointId, name)));
  }

  /** A value stored before sealing began (a row the migration has not reached) is read as it is. */
  openHeaders(endpointId: string, stored: CustomHeaders): CustomHeaders {
    return mapValues(stored, (name, value) => (isSealedText(value) ? openSealedText(this.cipher, value, headerContext(endpointId, name)) : value));
  }
}

export const secretContext = (endpointId: string): string => `webhook_endpoint:${endpointId}`;
/** Header names are case-insensitive (a PATCH of `x-token` replaces `X-Token`), so the context uses the lower case. */
export const headerContext = (endpointId: string, name: string): string => `webhook_endpoint:${endpointId}:header:${name.toLowerCase()}`;

function mapValues(headers: CustomHeaders, map: (name: string, value: string) => string): CustomHeaders {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, map(name, value)]));
}

const PLAIN = new EndpointSecretSealer(null);

export function endpointFromRow(row: EndpointRow, sealer: EndpointSecretSealer = PLAIN): WebhookEndpoint {
  const state: WebhookEndpointState = {
    id: row.id,
    organizationId: row.organization_id,
    environment: row.environment,
    url: row.url,
    description: row.description,
    enabledEvents: row.enabled_events,
    customHeaders: sealer.openHeaders(row.id, row.custom_headers),
    status: row.status,
    consecutiveFailures: Number(row.consecutive_failures),
    disabledReason: row.disabled_reason,
    secret: sealer.open(row.id, row.secret)!,
    previousSecret: sealer.open(row.id, row.previous_secret),
    previousSecretExpiresAt: date(row.previous_secret_expires_at),
    lastSuccessAt: date(row.last_success_at),
    lastAttemptAt: date(row.last_attempt_at),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    deletedAt: date(row.deleted_at),
  };
  return WebhookEndpoint.restore(state);
}

const COLUMNS = `id, organization_id, environment, url, description, enabled_events, custom_headers, status, consecutive_failures,
  disabled_reason, secret, previous_secret, previous_secret_expires_at, last_success_at, last_attempt_at, created_at, updated_at, deleted_at`;

function values(s: Readonly<WebhookEndpointState>, sealer: EndpointSecretSealer): unknown[] {
  return [
    s.id, s.organizationId, s.environment, s.url, s.description, JSON.stringify(s.enabledEvents), JSON.stringify(sealer.sealHeaders(s.id, s.customHeaders)), s.status,
    s.consecutiveFailures, s.disabledReason, sealer.seal(s.id, s.secret), sealer.seal(s.id, s.previousSecret), s.previousSecretExpiresAt, s.lastSuccessAt, s.lastAttemptAt,
    s.createdAt, s.updatedAt, s.deletedAt,
  ];
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '23505' || /unique|duplicate key/i.test(e?.message ?? '');
}

export class SqlWebhookEndpointRepository implements WebhookEndpointRepository {
  private readonly sealer: EndpointSecretSealer;

  constructor(cipher: CredentialCipher | null = null) {
    this.sealer = new EndpointSecretSealer(cipher);
  }

  async insert(tx: Transaction, endpoint: WebhookEndpoint): Promise<void> {
    try {
      await entityManager(tx).execute(
        `insert into webhook_endpoints (${COLUMNS}) values (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        values(endpoint.state, this.sealer),
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw urlTaken();
      throw error;
    }
    await announceEndpointsChanged(tx, endpoint);
  }

  async update(tx: Transaction, endpoint: WebhookEndpoint): Promise<void> {
    const [id, ...rest] = values(endpoint.state, this.sealer);
    try {
      await entityManager(tx).execute(
        `update webhook_endpoints set organization_id = ?, environment = ?, url = ?, description = ?, enabled_events = ?::jsonb,
           custom_headers = ?::jsonb, status = ?, consecutive_failures = ?, disabled_reason = ?, secret = ?, previous_secret = ?,
           previous_secret_expires_at = ?, last_success_at = ?, last_attempt_at = ?, created_at = ?, updated_at = ?, deleted_at = ?
         where id = ?`,
        [...rest, id],
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw urlTaken();
      throw error;
    }
    await announceEndpointsChanged(tx, endpoint);
  }

  async find(tx: Transaction, scope: TenantScope, id: string, options: { forUpdate?: boolean; includeDeleted?: boolean } = {}): Promise<WebhookEndpoint | null> {
    const rows = await entityManager(tx).execute<EndpointRow[]>(
      `select ${COLUMNS} from webhook_endpoints where id = ? and organization_id = ? and environment = ?
         ${options.includeDeleted ? '' : 'and deleted_at is null'} ${options.forUpdate ? 'for no key update' : ''}`,
      [id, scope.organizationId, scope.environment],
    );
    return rows[0] ? endpointFromRow(rows[0], this.sealer) : null;
  }

  async findById(tx: Transaction, id: string, options: { forUpdate?: boolean } = {}): Promise<WebhookEndpoint | null> {
    const rows = await entityManager(tx).execute<EndpointRow[]>(
      `select ${COLUMNS} from webhook_endpoints where id = ? ${options.forUpdate ? 'for no key update' : ''}`,
      [id],
    );
    return rows[0] ? endpointFromRow(rows[0], this.sealer) : null;
  }

  async list(tx: Transaction, scope: TenantScope): Promise<WebhookEndpoint[]> {
    const rows = await entityManager(tx).execute<EndpointRow[]>(
      `select ${COLUMNS} from webhook_endpoints where organization_id = ? and environment = ? and deleted_at is null order by id desc`,
      [scope.organizationId, scope.environment],
    );
    return rows.map((row) => endpointFromRow(row, this.sealer));
  }

  async countForUpdate(tx: Transaction, scope: TenantScope): Promise<number> {
    const em = entityManager(tx);
    // A transaction-scoped advisory lock per tenant serializes creations, so two concurrent requests cannot both see 19.
    await em.execute(`select pg_advisory_xact_lock(hashtext(?))`, [`webhook_endpoints:${scope.organizationId}:${scope.environment}`]);
    const rows = await em.execute<Array<{ n: number }>>(
      `select count(*)::int4 as n from webhook_endpoints where organization_id = ? and environment = ? and deleted_at is null`,
      [scope.organizationId, scope.environment],
    );
    return Number(rows[0].n);
  }

  async listReceiving(tx: Transaction, scopes: readonly TenantScope[]): Promise<WebhookEndpoint[]> {
    if (scopes.length === 0) return [];
    const rows = await entityManager(tx).execute<EndpointRow[]>(
      `select ${COLUMNS} from webhook_endpoints
        where (organization_id, environment) in (select s.organization_id, s.environment from jsonb_to_recordset(?::jsonb) as s(organization_id text, environment text))
          and deleted_at is null and status in ('active', 'failing')`,
      [JSON.stringify(scopes.map((s) => ({ organization_id: s.organizationId, environment: s.environment })))],
    );
    return rows.map((row) => endpointFromRow(row, this.sealer));
  }

  async findByIds(tx: Transaction, ids: readonly string[], options: { forUpdate?: boolean } = {}): Promise<WebhookEndpoint[]> {
    if (ids.length === 0) return [];
    const rows = await entityManager(tx).execute<EndpointRow[]>(
      `select ${COLUMNS} from webhook_endpoints where id in (select jsonb_array_elements_text(?::jsonb)) order by id
         ${options.forUpdate ? 'for no key update' : ''}`,
      [JSON.stringify(ids)],
    );
    return rows.map((row) => endpointFromRow(row, this.sealer));
  }

  async recordHealth(tx: Transaction, endpoints: readonly WebhookEndpoint[]): Promise<void> {
    if (endpoints.length === 0) return;
    const rows = endpoints.map(({ state: s }) => ({
      id: s.id, status: s.status, consecutive_failures: s.consecutiveFailures, disabled_reason: s.disabledReason,
      last_success_at: s.lastSuccessAt, last_attempt_at: s.lastAttemptAt, updated_at: s.updatedAt,
    }));
    // Health columns only (no secret re-sealed), queued for the unit's commit.
    await deferWrite(
      tx,
      `update webhook_endpoints e set status = v.status, consecutive_failures = v.consecutive_failures, disabled_reason = v.disabled_reason,
         last_success_at = v.last_success_at, last_attempt_at = v.last_attempt_at, updated_at = v.updated_at
        from jsonb_to_recordset(?::jsonb) as v(id text, status text, consecutive_failures int4, disabled_reason text,
          last_success_at timestamptz, last_attempt_at timestamptz, updated_at timestamptz)
       where e.id = v.id`,
      [JSON.stringify(rows)],
    );
    // Failures switched these off: fan-out in every process stops planning deliveries to them.
    for (const endpoint of endpoints) if (!endpoint.receivesDeliveries()) await announceEndpointsChanged(tx, endpoint);
  }
}

/** Every process that remembers the tenant's receiving endpoints (fan-out) forgets them when this commits. */
function announceEndpointsChanged(tx: Transaction, endpoint: WebhookEndpoint): Promise<void> {
  return announceChange(tx, 'webhook_endpoints', tenantChangeKey(endpoint.state));
}

function urlTaken(): DomainError {
  return new DomainError('webhook_url_taken', 'A webhook endpoint with this URL already exists in this environment.', { param: 'body.url' });
}
