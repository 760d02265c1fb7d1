import type { IdempotencyBegin, IdempotencyStore, StoredResponse } from '../../edge/http/idempotency';
import { IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_TTL_MS } from '../../edge/http/idempotency';
import type { CredentialCipher } from '../../domain/ports/credential-cipher';
import type { TenantScope } from '../../domain/shared/environment';
import { isSealedText, openSealedText, sealText } from '../crypto/sealed-text';
import type { Transactor } from '../../domain/ports/transactor';
import { deferWrite, entityManager, readBatchWindowOf } from './mikro-orm-transactor';
import { inLockOrder, ReadBatch } from './read-batch';

interface KeyRow {
  request_hash: string;
  state: 'in_flight' | 'completed';
  response_status: number | null;
  response_body: unknown;
  response_headers: Record<string, string> | null;
}

/** One request's claim of its key, as the batch sends it. */
interface Claim {
  readonly scope: TenantScope;
  readonly route: string;
  readonly key: string;
  readonly requestHash: string;
  readonly now: Date;
}

/** Claims of the same key (tenant, route, key) in one batch: one statement cannot claim a row twice. */
function claimIdentity(claim: Claim): string {
  return JSON.stringify([claim.scope.organizationId, claim.scope.environment, claim.route, claim.key]);
}

/**
 * Idempotency keys in PostgreSQL. `begin` is one statement that either claims the key or reports what
 * holds it: a fresh key, an expired one (older than 24 h) or an abandoned in-flight one with the same
 * request (its process died) is claimed; anything else is a replay or a conflict.
 *
 * Every idempotent request claims its key before it runs and stores its answer after, so both travel the core's
 * pipelined connections (mikro-orm-transactor.ts), and keys claimed in the same turn of the event loop are claimed
 * by ONE statement (read-batch.ts), answers stored at the same moment by one group commit. Measured on 26 Nov: the
 * claim through MikroORM's query runner cost a public checkout confirm about a tenth of its main thread.
 *
 * Answers are kept 24 hours and some carry secrets (a webhook endpoint's `whsec_` secret on create and
 * rotate-secret), so every stored answer is sealed (AES-256-GCM, the credentials key) whatever its route: body and
 * headers together, as one JSON string `sealed:<keyId>:<ciphertext>` in response_body, bound to the key's tenant,
 * route and key. One seal of a few KB costs microseconds. A clear answer stored before sealing began is replayed
 * as it is until the migration that seals them has run.
 */
export class SqlIdempotencyStore implements IdempotencyStore {
  private readonly claims: ReadBatch<Claim, boolean>;

  constructor(
    private readonly transactor: Transactor,
    private readonly cipher: CredentialCipher,
    readonly lockMs: number = IDEMPOTENCY_LOCK_MS,
  ) {
    this.claims = new ReadBatch((claims) => this.claimAll(claims), { windowMs: readBatchWindowOf(transactor) });
  }

  async begin(scope: TenantScope, route: string, key: string, requestHash: string, now: Date): Promise<IdempotencyBegin> {
    if (await this.claims.read({ scope, route, key, requestHash, now })) return { kind: 'started' };
    const rows = await this.transactor.read((tx) =>
      entityManager(tx).execute<KeyRow[]>(
        `select request_hash, state, response_status, response_body, response_headers from idempotency_keys
          where organization_id = ? and environment = ? and route = ? and key = ?`,
        [scope.organizationId, scope.environment, route, key],
      ),
    );
    const row = rows[0];
    if (!row) return this.begin(scope, route, key, requestHash, now); // removed in between: claim again
    if (row.request_hash !== requestHash) return { kind: 'conflict', reason: 'different_request' };
    if (row.state === 'in_flight') return { kind: 'conflict', reason: 'in_flight' };
    return { kind: 'replay', response: this.storedResponse(scope, route, key, row) };
  }

  /**
   * Whether each claim took its key, in order. A key claimed twice in one batch is claimed by its first request
   * only; the others are answered as not claimed, and `begin` reads what holds the key (the first one, in flight),
   * as it would have a moment later.
   */
  private async claimAll(claims: readonly Claim[]): Promise<boolean[]> {
    const firsts = new Map<string, number>();
    claims.forEach((claim, index) => {
      const identity = claimIdentity(claim);
      if (!firsts.has(identity)) firsts.set(identity, index);
    });
    const rows = inLockOrder(firsts).map(([, index]) => {
      const { scope, route, key, requestHash, now } = claims[index]!;
      return {
        org: scope.organizationId, env: scope.environment, route, key, hash: requestHash, created_at: now.toISOString(),
        locked_until: new Date(now.getTime() + this.lockMs).toISOString(), expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
      };
    });
    const claimed = await this.transactor.read((tx) =>
      entityManager(tx).execute<Array<{ organization_id: string; environment: string; route: string; key: string }>>(
        `insert into idempotency_keys as k (organization_id, environment, route, key, request_hash, state, created_at, locked_until, expires_at)
         select a.org, a.env, a.route, a.key, a.hash, 'in_flight', a.created_at, a.locked_until, a.expires_at
           from jsonb_to_recordset(?::jsonb) as a(org text, env text, route text, key text, hash text, created_at timestamptz, locked_until timestamptz, expires_at timestamptz)
         on conflict (organization_id, environment, route, key) do update
           set request_hash = excluded.request_hash, state = 'in_flight', response_status = null, response_body = null,
               response_headers = null, created_at = excluded.created_at, locked_until = excluded.locked_until, expires_at = excluded.expires_at
           where k.expires_at < excluded.created_at
              or (k.state = 'in_flight' and k.locked_until < excluded.created_at and k.request_hash = excluded.request_hash)
         returning k.organization_id, k.environment, k.route, k.key`,
        [JSON.stringify(rows)],
      ),
    );
    const taken = new Set(claimed.map((row) => firsts.get(JSON.stringify([row.organization_id, row.environment, row.route, row.key]))));
    return claims.map((_, index) => taken.has(index));
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
    // A unit of queued writes: answers stored at the same moment share one round trip (group commit, group-commit.ts),
    // and each resolves once committed, so the answer is stored before the request answers.
    await this.transactor.run((tx) => deferWrite(tx, sql, params));
  }

  async renew(scope: TenantScope, route: string, key: string, now: Date): Promise<void> {
    await this.transactor.read((tx) => entityManager(tx).execute(
      `update idempotency_keys set locked_until = ? where organization_id = ? and environment = ? and route = ? and key = ? and state = 'in_flight'`,
      [new Date(now.getTime() + this.lockMs), scope.organizationId, scope.environment, route, key],
    ));
  }

  async abandon(scope: TenantScope, route: string, key: string): Promise<void> {
    await this.transactor.read((tx) => entityManager(tx).execute(
      `delete from idempotency_keys where organization_id = ? and environment = ? and route = ? and key = ? and state = 'in_flight'`,
      [scope.organizationId, scope.environment, route, key],
    ));
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
