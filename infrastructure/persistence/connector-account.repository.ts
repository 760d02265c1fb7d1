import { tenantChangeKey } from '../../domain/ports/change-feed';
import { ConnectorAccount, type ConnectorAccountState } from '../../domain/connector-account/connector-account';
import {
  RECENT_CALLS_WINDOW,
  type CallOutcome,
  type CallRecord,
  type HealthHistory,
  type VerificationRecord,
  type VerificationResult,
} from '../../domain/connector-account/connector-account-health';
import type { ConnectorAccountRepository } from '../../domain/ports/connector-account-repository';
import type { ConnectorKind } from '../../domain/ports/connector-description';
import type { CredentialCipher } from '../../domain/ports/credential-cipher';
import type { Transaction } from '../../domain/ports/transactor';
import type { Environment, TenantScope } from '../../domain/shared/environment';
import { secretsEqual } from '../crypto/constant-time-equal';
import { openSealedText, sealText } from '../crypto/sealed-text';
import { announceChange, deferWrite, entityManager } from './mikro-orm-transactor';
import { TRIM_CALLS_SQL, type CallHistoryWriter } from './call-history-writer';

/** Without a call history writer, about one recorded call in this many trims the account's call history. */
const TRIM_EVERY = 20;

interface AccountRow {
  id: string;
  organization_id: string;
  environment: Environment;
  connector_slug: string;
  kind: ConnectorKind;
  name: string;
  credentials_key_id: string;
  credentials_ciphertext: string;
  config: Record<string, unknown>;
  cost_basis_points: number | null;
  enabled: boolean;
  webhook_token: string;
  created_at: Date | string;
  updated_at: Date | string;
  deleted_at: Date | string | null;
}

const COLUMNS = `id, organization_id, environment, connector_slug, kind, name, credentials_key_id, credentials_ciphertext, config,
  cost_basis_points, enabled, webhook_token, created_at, updated_at, deleted_at`;

/** Associated data of the sealed credentials: a ciphertext moved to another row does not open. */
function sealContext(row: { id: string; organization_id: string; environment: string }): string {
  return `connector_account:${row.id}:${row.organization_id}:${row.environment}`;
}

/**
 * Associated data of the sealed inbound-notice token: it authenticates a bank's notices to this account alone, and the
 * account's webhookUrl shows it, so it is sealed (not hashed) and opened on read.
 */
export function webhookTokenContext(accountId: string): string {
  return `connector_account_webhook_token:${accountId}`;
}

/**
 * SQL repository of connector accounts; credentials and the inbound-notice token are sealed on write and opened on
 * read, never stored clear.
 */
export class SqlConnectorAccountRepository implements ConnectorAccountRepository {
  /**
   * `callHistory`: calls are written in batches off the caller's unit of work (call-history-writer.ts); without it
   * (the CLI, tests of this repository), each call is queued in the caller's unit as before.
   */
  constructor(
    private readonly cipher: CredentialCipher,
    private readonly callHistory: CallHistoryWriter | null = null,
  ) {}

  private fromRow(row: AccountRow): ConnectorAccount {
    const credentials = JSON.parse(
      this.cipher.open({ keyId: row.credentials_key_id, ciphertext: row.credentials_ciphertext }, sealContext(row)),
    ) as Record<string, string>;
    const state: ConnectorAccountState = {
      id: row.id,
      organizationId: row.organization_id,
      environment: row.environment,
      connectorSlug: row.connector_slug,
      kind: row.kind,
      name: row.name,
      credentials,
      config: typeof row.config === 'string' ? (JSON.parse(row.config) as Record<string, unknown>) : row.config,
      costBasisPoints: row.cost_basis_points === null ? null : Number(row.cost_basis_points),
      enabled: row.enabled,
      webhookToken: openSealedText(this.cipher, row.webhook_token, webhookTokenContext(row.id)),
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
      deletedAt: row.deleted_at === null ? null : new Date(row.deleted_at),
    };
    return ConnectorAccount.restore(state);
  }

  private values(account: ConnectorAccount): unknown[] {
    const s = account.state;
    const sealed = this.cipher.seal(
      JSON.stringify(s.credentials),
      sealContext({ id: s.id, organization_id: s.organizationId, environment: s.environment }),
    );
    return [
      s.id, s.organizationId, s.environment, s.connectorSlug, s.kind, s.name, sealed.keyId, sealed.ciphertext, JSON.stringify(s.config),
      s.costBasisPoints, s.enabled, sealText(this.cipher, s.webhookToken, webhookTokenContext(s.id)), s.createdAt, s.updatedAt, s.deletedAt,
    ];
  }

  async insert(tx: Transaction, account: ConnectorAccount): Promise<void> {
    await entityManager(tx).execute(
      `insert into connector_accounts (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?)`,
      this.values(account),
    );
    await announceAccountsChanged(tx, account);
  }

  /** Re-seals with the current key on every write, so rotation completes as accounts are touched. */
  async update(tx: Transaction, account: ConnectorAccount): Promise<void> {
    const [id, , , , , name, keyId, ciphertext, config, cost, enabled, webhookToken, , updatedAt, deletedAt] = this.values(account);
    await entityManager(tx).execute(
      `update connector_accounts set name = ?, credentials_key_id = ?, credentials_ciphertext = ?, config = ?::jsonb,
         cost_basis_points = ?, enabled = ?, webhook_token = ?, updated_at = ?, deleted_at = ? where id = ?`,
      [name, keyId, ciphertext, config, cost, enabled, webhookToken, updatedAt, deletedAt, id],
    );
    await announceAccountsChanged(tx, account);
  }

  async findById(tx: Transaction, scope: TenantScope, id: string, options: { forUpdate?: boolean } = {}): Promise<ConnectorAccount | null> {
    const rows = await entityManager(tx).execute<AccountRow[]>(
      `select ${COLUMNS} from connector_accounts where id = ? and organization_id = ? and environment = ? and deleted_at is null
       ${options.forUpdate ? 'for update' : ''}`,
      [id, scope.organizationId, scope.environment],
    );
    return rows[0] ? this.fromRow(rows[0]) : null;
  }

  async list(tx: Transaction, scope: TenantScope): Promise<ConnectorAccount[]> {
    const rows = await entityManager(tx).execute<AccountRow[]>(
      `select ${COLUMNS} from connector_accounts where organization_id = ? and environment = ? and deleted_at is null
       order by created_at, id`,
      [scope.organizationId, scope.environment],
    );
    return rows.map((row) => this.fromRow(row));
  }

  async findByWebhookToken(tx: Transaction, id: string, token: string): Promise<ConnectorAccount | null> {
    const rows = await entityManager(tx).execute<AccountRow[]>(
      `select ${COLUMNS} from connector_accounts where id = ? and deleted_at is null`,
      [id],
    );
    const row = rows[0];
    if (!row) return null;
    const account = this.fromRow(row);
    return secretsEqual(account.state.webhookToken, token) ? account : null;
  }

  /**
   * Key rotation: re-seals, with the current key, every row sealed with another one (deleted rows included).
   * Rows are locked one batch at a time; returns how many were re-sealed.
   */
  async resealWithCurrentKey(tx: Transaction, batchSize = 500): Promise<number> {
    const em = entityManager(tx);
    let total = 0;
    for (;;) {
      const rows = await em.execute<Array<Pick<AccountRow, 'id' | 'organization_id' | 'environment' | 'credentials_key_id' | 'credentials_ciphertext' | 'webhook_token'>>>(
        `select id, organization_id, environment, credentials_key_id, credentials_ciphertext, webhook_token from connector_accounts
         where credentials_key_id <> ? order by id limit ? for update`,
        [this.cipher.currentKeyId, batchSize],
      );
      if (rows.length === 0) return total;
      for (const row of rows) {
        const plaintext = this.cipher.open({ keyId: row.credentials_key_id, ciphertext: row.credentials_ciphertext }, sealContext(row));
        const sealed = this.cipher.seal(plaintext, sealContext(row));
        // The notice token is sealed by every write with the credentials, so it moves to the current key with them.
        const token = sealText(this.cipher, openSealedText(this.cipher, row.webhook_token, webhookTokenContext(row.id)), webhookTokenContext(row.id));
        await em.execute(`update connector_accounts set credentials_key_id = ?, credentials_ciphertext = ?, webhook_token = ? where id = ?`, [
          sealed.keyId,
          sealed.ciphertext,
          token,
          row.id,
        ]);
      }
      total += rows.length;
    }
  }

  /** How many rows each key id seals (to know when an old key can be dropped). */
  async countByKeyId(tx: Transaction): Promise<Record<string, number>> {
    const rows = await entityManager(tx).execute<Array<{ credentials_key_id: string; n: number }>>(
      `select credentials_key_id, count(*)::int as n from connector_accounts group by credentials_key_id`,
    );
    return Object.fromEntries(rows.map((r) => [r.credentials_key_id, Number(r.n)]));
  }

  async recordVerification(tx: Transaction, accountId: string, record: VerificationRecord): Promise<void> {
    await entityManager(tx).execute(
      `insert into connector_account_health (account_id, kind, result, message, occurred_at) values (?, 'verification', ?, ?, ?)`,
      [accountId, record.result, record.message, record.at],
    );
  }

  async recordCall(tx: Transaction, scope: TenantScope, accountId: string, record: CallRecord): Promise<void> {
    if (this.callHistory) {
      this.callHistory.record(scope, accountId, record);
      return;
    }
    await deferWrite(
      tx,
      `insert into connector_account_health (account_id, kind, result, operation, latency_ms, occurred_at)
       select a.id, 'call', ?, ?, ?, ? from connector_accounts a where a.id = ? and a.organization_id = ? and a.environment = ?`,
      [record.outcome, record.operation, record.latencyMs, record.at, accountId, scope.organizationId, scope.environment],
    );
    // Keep only the displayed window (plus slack): about one call in TRIM_EVERY trims (see call-history-writer.ts).
    if (Math.random() * TRIM_EVERY < 1) await deferWrite(tx, TRIM_CALLS_SQL, [accountId, accountId, RECENT_CALLS_WINDOW * 2]);
  }

  async clearHealth(tx: Transaction, accountId: string): Promise<void> {
    await entityManager(tx).execute(`delete from connector_account_health where account_id = ?`, [accountId]);
  }

  async healthOf(tx: Transaction, accountIds: readonly string[]): Promise<Map<string, HealthHistory>> {
    const result = new Map<string, HealthHistory>();
    if (accountIds.length === 0) return result;
    // Every call this process recorded before the read is in it: those not committed yet come from memory, taken
    // before the read so that a batch committing meanwhile is found at least once (call-history-writer.ts, unwritten).
    const unwritten = this.callHistory?.unwritten(accountIds);
    const rows = await entityManager(tx).execute<
      Array<{ account_id: string; kind: 'verification' | 'call'; result: string; operation: string | null; message: string | null; latency_ms: number | null; occurred_at: Date | string }>
    >(
      `select account_id, kind, result, operation, message, latency_ms, occurred_at from (
         select h.id, h.account_id, h.kind, h.result, h.operation, h.message, h.latency_ms, h.occurred_at,
                row_number() over (partition by account_id, kind order by id desc) as n
         from connector_account_health h where account_id in (select jsonb_array_elements_text(?::jsonb))
       ) ranked where (kind = 'verification' and n = 1) or (kind = 'call' and n <= ?)
       order by account_id, id desc`,
      [JSON.stringify(accountIds), RECENT_CALLS_WINDOW],
    );
    for (const id of accountIds) result.set(id, { lastVerification: null, recentCalls: [] });
    for (const row of rows) {
      const history = result.get(row.account_id)!;
      const at = new Date(row.occurred_at);
      if (row.kind === 'verification') {
        result.set(row.account_id, {
          ...history,
          lastVerification: { result: row.result as VerificationResult, message: row.message ?? '', at },
        });
      } else {
        (history.recentCalls as CallRecord[]).push({
          outcome: row.result as CallOutcome,
          operation: row.operation ?? '',
          latencyMs: row.latency_ms === null ? null : Number(row.latency_ms),
          at,
        });
      }
    }
    for (const [id, calls] of unwritten ?? []) {
      const history = result.get(id)!;
      const fresh = calls.filter((call) => !history.recentCalls.some((written) => sameCall(written, call)));
      result.set(id, { ...history, recentCalls: [...fresh, ...history.recentCalls].slice(0, RECENT_CALLS_WINDOW) });
    }
    return result;
  }
}

/** A call read back from its row is the call recorded (ms precision both ways). */
function sameCall(a: CallRecord, b: CallRecord): boolean {
  return a.at.getTime() === b.at.getTime() && a.outcome === b.outcome && a.operation === b.operation && a.latencyMs === b.latencyMs;
}

/** Processes that keep an environment's accounts in memory (for routing) read them again once this commits. */
function announceAccountsChanged(tx: Transaction, account: ConnectorAccount): Promise<void> {
  return announceChange(tx, 'connector_accounts', tenantChangeKey(account.state));
}
