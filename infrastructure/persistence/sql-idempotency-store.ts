import type { IdempotencyBegin, IdempotencyStore, StoredResponse } from '../../edge/http/idempotency';
import { IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_TTL_MS } from '../../edge/http/idempotency';
import type { CredentialCipher } from '../../domain/ports/credential-cipher';
import type { TenantScope } from '../../domain/shared/environment';
import { isSealedText, openSealedText, sealText } from '../crypto/sealed-text';
import type { Transactor } from '../../domain/ports/transactor';
import { deferWrite } from './mikro-orm-transactor';
import type { Orm } from './orm';

interface KeyRow {
  request_hash: string;
  state: 'in_flight' | 'completed';
  response_status: number | null;
  response_body: unknown;
  response_headers: Record<string, string> | null;
}

/**
 * Idempotency keys in PostgreSQL. `begin` is one statement that either claims the key or reports what
 * holds it: a fresh key, an expired one (older than 24 h) or an abandoned in-flight one with the same
 * request (its process died) is claimed; anything else is a replay or a conflict.
 *
 * Answers are kept 24 hours and some carry secrets (a webhook endpoint's `whsec_` secret on create and
 * rotate-secret), so every stored answer is sealed (AES-256-GCM, the credentials key) whatever its route: body and
 * headers together, as one JSON string `sealed:<keyId>:<ciphertext>` in response_body, bound to the key's tenant,
 * route and key. One seal of a few KB costs microseconds. A clear answer stored before sealing began is replayed
 * as it is until the migration that seals them has run.
 */
export class SqlIdempotencyStore implements IdempotencyStore {
  /**
   * `transactor`: when given, an answer is stored as a unit of queued writes, so answers stored at the same moment
   * share one round trip (group commit, group-commit.ts); every idempotent request stores one.
   */
  constructor(
    private readonly orm: Orm,
    private readonly cipher: CredentialCipher,
    readonly lockMs: number = IDEMPOTENCY_LOCK_MS,
    private readonly transactor?: Transactor,
  ) {}

  async begin(scope: TenantScope, route: string, key: string, requestHash: string, now: Date): Promise<IdempotencyBegin> {
    const em = this.orm.em.fork({ useContext: false });
    const claimed = await em.execute(
      `insert into idempotency_keys as k (organization_id, environment, route, key, request_hash, state, created_at, locked_until, expires_at)
       values (?, ?, ?, ?, ?, 'in_flight', ?, ?, ?)
       on conflict (organization_id, environment, route, key) do update
         set request_hash = excluded.request_hash, state = 'in_flight', response_status = null, response_body = null,
             response_headers = null, created_at = excluded.created_at, locked_until = excluded.locked_until, expires_at = excluded.expires_at
         where k.expires_at < excluded.created_at
            or (k.state = 'in_flight' and k.locked_until < excluded.created_at and k.request_hash = excluded.request_hash)
       returning key`,
      [scope.organizationId, scope.environment, route, key, requestHash, now, new Date(now.getTime() + this.lockMs), new Date(now.getTime() + IDEMPOTENCY_TTL_MS)],
    );
    if (claimed.length === 1) return { kind: 'started' };
    const rows = await em.execute<KeyRow[]>(
      `select request_hash, state, response_status, response_body, response_headers from idempotency_keys
        where organization_id = ? and environment = ? and route = ? and key = ?`,
      [scope.organizationId, scope.environment, route, key],
    );
    const row = rows[0];
    if (!row) return this.begin(scope, route, key, requestHash, now); // removed in between: claim again
    if (row.request_hash !== requestHash) return { kind: 'conflict', reason: 'different_request' };
    if (row.state === 'in_flight') return { kind: 'conflict', reason: 'in_flight' };
    return { kind: 'replay', response: this.storedResponse(scope, route, key, row) };
  }

  private storedResponse(scope: TenantScope, route: string, key: string, row: KeyRow): StoredResponse {
    const status = row.response_status ?? 200;
    if (!isSealedText(row.response_body)) return { status, body: row.response_body, headers: row.response_headers ?? {} };
    const answer = JSON.parse(openSealedText(this.cipher, row.response_body, answerContext(scope, route, key))) as SealedAnswer;
    return { status, body: answer.body, headers: answer.headers };
  }

  async complete(scope: TenantScope, route: string, key: string, response: StoredResponse): Promise<void> {
    const sql = `update idempotency_keys set state = 'completed', response_status = ?, response_body = ?::jsonb, response_headers = null
        where organization_id = ? and environment = ? and route = ? and key = ?`;
    const params = [response.status, JSON.stringify(sealAnswer(this.cipher, scope, route, key, response)), scope.organizationId, scope.environment, route, key];
    // Resolves once committed either way: the answer is stored before the request answers.
    if (this.transactor) await this.transactor.run((tx) => deferWrite(tx, sql, params));
    else await this.orm.em.fork({ useContext: false }).execute(sql, params);
  }

  async renew(scope: TenantScope, route: string, key: string, now: Date): Promise<void> {
    await this.orm.em.fork({ useContext: false }).execute(
      `update idempotency_keys set locked_until = ? where organization_id = ? and environment = ? and route = ? and key = ? and state = 'in_flight'`,
      [new Date(now.getTime() + this.lockMs), scope.organizationId, scope.environment, route, key],
    );
  }

  async abandon(scope: TenantScope, route: string, key: string): Promise<void> {
    await this.orm.em.fork({ useContext: false }).execute(
      `delete from idempotency_keys where organization_id = ? and environment = ? and route = ? and key = ? and state = 'in_flight'`,
      [scope.organizationId, scope.environment, route, key],
    );
  }
}

interface SealedAnswer {
  readonly body: unknown;
  readonly headers: Record<string, string>;
}

/** The associated data of a stored answer: an answer copied to another tenant's, route's or key's row does not open. */
export function answerContext(scope: TenantScope, route: string, key: string): string {
  return `idempotency_key:${JSON.stringify([scope.organizationId, scope.environment, route, key])}`;
}

/** What response_body holds: the answer's body and headers sealed together (the status stays readable). */
export function sealAnswer(cipher: CredentialCipher, scope: TenantScope, route: string, key: string, response: Pick<StoredResponse, 'body' | 'headers'>): string {
  const answer: SealedAnswer = { body: response.body ?? null, headers: response.headers ?? {} };
  return sealText(cipher, JSON.stringify(answer), answerContext(scope, route, key));
}
