import type { TenantScope } from '../../domain/shared/environment';
import type { Transactor } from '../../domain/ports/transactor';
import type { AesGcmCredentialCipher } from '../crypto/aes-gcm-credential-cipher';
import { SEALED_PREFIX, isSealedText, openSealedText, sealText } from '../crypto/sealed-text';
import { installationSecretContext } from './identity-secrets';
import { entityManager } from './mikro-orm-transactor';
import { answerContext } from './sql-idempotency-store';
import { headerContext, secretContext } from './webhook-endpoint.repository';

/**
 * CREDENTIALS_KEY rotation (`credentials reseal`, docs/operations.md): every value stored as `sealed:<keyId>:...`
 * under another key than the current (first) one is opened and sealed again with the current key, with the same
 * context it was sealed for. Connector accounts (credentials and notice token) are resealed by their repository;
 * this covers the other tables holding sealed text:
 * webhook endpoints (signing secrets, the previous one while it is honoured, custom header values), Idempotency-Key
 * answers kept for replay, installation secrets (the generated session secret, the pseudonymization key), TOTP
 * secrets (confirmed and pending) and payments' client secrets (a checkout's and one given to a payment awaiting the
 * buyer).
 *
 * Each table is walked once in primary-key order, a batch per transaction, rows locked while resealed. A process
 * that read a row before and writes it after puts back a value sealed with the old key: still readable while the
 * old key is listed, and counted in `remaining`, so the operator runs the command again until every count is 0.
 */
interface SealedTable {
  /** The name the report uses (the table). */
  readonly table: string;
  /** Primary key columns: the order batches follow. */
  readonly key: readonly string[];
  /** The other columns read. */
  readonly columns: readonly string[];
  /** Rows holding a value sealed with another key; `stale(expression)` renders the test for one value. */
  readonly staleWhere: (stale: (expression: string) => string) => string;
  /** The row's update with every value resealed (values already current are kept as they are). */
  readonly update: (row: Row, reseal: (stored: string | null, context: string) => string | null) => { sql: string; params: unknown[] };
}

type Row = Record<string, unknown>;

const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
const json = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

const SEALED_TABLES: readonly SealedTable[] = [
  {
    table: 'webhook_endpoints',
    key: ['id'],
    columns: ['secret', 'previous_secret', 'custom_headers'],
    staleWhere: (stale) =>
      `${stale('secret')} or ${stale('previous_secret')} or exists (select 1 from jsonb_each_text(custom_headers) h where ${stale('h.value')})`,
    update: (row, reseal) => {
      const id = String(row.id);
      const headers = Object.fromEntries(
        Object.entries(json<Record<string, string>>(row.custom_headers)).map(([name, value]) => [name, reseal(value, headerContext(id, name))]),
      );
      return {
        sql: `update webhook_endpoints set secret = ?, previous_secret = ?, custom_headers = ?::jsonb where id = ?`,
        params: [reseal(text(row.secret), secretContext(id)), reseal(text(row.previous_secret), secretContext(id)), JSON.stringify(headers), id],
      };
    },
  },
  {
    table: 'idempotency_keys',
    key: ['organization_id', 'environment', 'route', 'key'],
    columns: [`response_body #>> '{}' as sealed_answer`],
    // The sealed answer is a JSON string; `#>> '{}'` is its text (null for a clear answer stored before sealing).
    staleWhere: (stale) => `jsonb_typeof(response_body) = 'string' and ${stale(`(response_body #>> '{}')`)}`,
    update: (row, reseal) => {
      const scope = { organizationId: String(row.organization_id), environment: row.environment as TenantScope['environment'] };
      const body = reseal(text(row.sealed_answer), answerContext(scope, String(row.route), String(row.key)));
      return {
        sql: `update idempotency_keys set response_body = ?::jsonb where organization_id = ? and environment = ? and route = ? and key = ?`,
        params: [JSON.stringify(body), row.organization_id, row.environment, row.route, row.key],
      };
    },
  },
  {
    table: 'identity_secrets',
    key: ['name'],
    columns: ['value'],
    staleWhere: (stale) => stale('value'),
    update: (row, reseal) => ({
      sql: `update identity_secrets set value = ? where name = ?`,
      params: [reseal(text(row.value), installationSecretContext(String(row.name))), row.name],
    }),
  },
  {
    table: 'identity_users',
    key: ['id'],
    columns: ['totp_secret'],
    staleWhere: (stale) => stale('totp_secret'),
    // TotpSecretSealer's context (identity.repository.ts).
    update: (row, reseal) => ({ sql: `update identity_users set totp_secret = ? where id = ?`, params: [reseal(text(row.totp_secret), `totp:${row.id}`), row.id] }),
  },
  {
    table: 'identity_challenges',
    key: ['id'],
    columns: ['user_id', 'pending_secret'],
    staleWhere: (stale) => stale('pending_secret'),
    update: (row, reseal) => ({
      sql: `update identity_challenges set pending_secret = ? where id = ?`,
      params: [reseal(text(row.pending_secret), `totp:${row.user_id}`), row.id],
    }),
  },
  {
    table: 'payments',
    key: ['id'],
    columns: [`doc #>> '{checkout,secret,sealed}' as checkout_secret`, `doc #>> '{clientSecret,sealed}' as client_secret`],
    staleWhere: (stale) => `${stale(`(doc #>> '{checkout,secret,sealed}')`)} or ${stale(`(doc #>> '{clientSecret,sealed}')`)}`,
    // Only the stale sealed texts change (jsonb_set): the rest of the aggregate is not read and written back, so no
    // concurrent change to it is lost.
    update: (row, reseal) => {
      const context = `payment:${row.id}:client_secret`;
      let doc = 'doc';
      const params: unknown[] = [];
      for (const [column, path] of [['checkout_secret', '{checkout,secret,sealed}'], ['client_secret', '{clientSecret,sealed}']] as const) {
        const stored = text(row[column]);
        const fresh = reseal(stored, context);
        if (fresh === stored) continue;
        doc = `jsonb_set(${doc}, '${path}', to_jsonb(?::text), false)`;
        params.push(fresh);
      }
      return { sql: `update payments set doc = ${doc} where id = ?`, params: [...params, row.id] };
    },
  },
];

export interface SealedValuesReseal {
  /** Rows resealed, by table. */
  readonly resealed: Record<string, number>;
  /** Rows still holding a value sealed with another key, by table (0 everywhere: the old keys can be removed). */
  readonly remaining: Record<string, number>;
}

/** Reseals every table's values with the cipher's current key, then counts what is left under other keys. */
export async function resealSealedValues(transactor: Transactor, cipher: AesGcmCredentialCipher, batchSize = 500): Promise<SealedValuesReseal> {
  const resealed: Record<string, number> = {};
  const remaining: Record<string, number> = {};
  for (const table of SEALED_TABLES) resealed[table.table] = await resealTable(transactor, cipher, table, batchSize);
  for (const table of SEALED_TABLES) remaining[table.table] = await countStale(transactor, cipher, table);
  return { resealed, remaining };
}

/** The test "sealed, by a key other than the current one" for one text expression, its parameter pushed to `params`. */
function staleTest(cipher: AesGcmCredentialCipher, params: unknown[]): (expression: string) => string {
  return (expression) => {
    params.push(`${SEALED_PREFIX}${cipher.currentKeyId}:%`);
    return `(${expression} like '${SEALED_PREFIX}%' and ${expression} not like ?)`;
  };
}

async function resealTable(transactor: Transactor, cipher: AesGcmCredentialCipher, table: SealedTable, batchSize: number): Promise<number> {
  const reseal = (stored: string | null, context: string): string | null => {
    if (stored === null || !isSealedText(stored) || stored.startsWith(`${SEALED_PREFIX}${cipher.currentKeyId}:`)) return stored;
    return sealText(cipher, openSealedText(cipher, stored, context), context);
  };
  const keys = table.key.join(', ');
  let after: unknown[] | null = null;
  let total = 0;
  for (;;) {
    const batch: Row[] = await transactor.run(async (tx) => {
      const params: unknown[] = [];
      const where = table.staleWhere(staleTest(cipher, params));
      const resume = after ? ` and (${keys}) > (${table.key.map(() => '?').join(', ')})` : '';
      const rows = await entityManager(tx).execute<Row[]>(
        `select ${keys}, ${table.columns.join(', ')} from ${table.table} where (${where})${resume} order by ${keys} limit ? for update`,
        [...params, ...(after ?? []), batchSize],
      );
      for (const row of rows) {
        const { sql, params: values } = table.update(row, reseal);
        await entityManager(tx).execute(sql, values);
      }
      return rows;
    });
    total += batch.length;
    if (batch.length < batchSize) return total;
    const last = batch[batch.length - 1]!;
    after = table.key.map((column) => last[column]);
  }
}

async function countStale(transactor: Transactor, cipher: AesGcmCredentialCipher, table: SealedTable): Promise<number> {
  return transactor.read(async (tx) => {
    const params: unknown[] = [];
    const where = table.staleWhere(staleTest(cipher, params));
    const rows = await entityManager(tx).execute<Array<{ n: number }>>(`select count(*)::int as n from ${table.table} where ${where}`, params);
    return Number(rows[0]?.n ?? 0);
  });
}
