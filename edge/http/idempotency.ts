import { createHash } from 'node:crypto';
import type { TenantScope } from '../../domain/shared/environment';

/** How long a key is kept (contract.md section 3); the domain's, which a payment's binding to its key shares. */
export { IDEMPOTENCY_TTL_MS } from '../../domain/shared/idempotency';
/**
 * An in-flight key whose lock is this old is treated as abandoned (its process died) and may be taken over. A live
 * request renews its lock every third of it (the edge's heartbeat), so a slow request (an acquirer that times out
 * on every account of a long fallback list) keeps its key however long it runs.
 */
export const IDEMPOTENCY_LOCK_MS = 60 * 1000;

export interface StoredResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;
}

export type IdempotencyBegin =
  | { readonly kind: 'started' }
  | { readonly kind: 'replay'; readonly response: StoredResponse }
  | { readonly kind: 'conflict'; readonly reason: 'different_request' | 'in_flight' };

/** Where Idempotency-Key records live: scoped to organization + environment + route. */
export interface IdempotencyStore {
  begin(scope: TenantScope, route: string, key: string, requestHash: string, now: Date): Promise<IdempotencyBegin>;
  complete(scope: TenantScope, route: string, key: string, response: StoredResponse): Promise<void>;
  /** Forgets a started key whose request failed unexpectedly, so the client can retry it. */
  abandon(scope: TenantScope, route: string, key: string): Promise<void>;
  /** Extends the lock of a key still in flight to `now` + the lock duration (a request still running). */
  renew?(scope: TenantScope, route: string, key: string, now: Date): Promise<void>;
  /** The lock duration this store gives (IDEMPOTENCY_LOCK_MS unless configured); the edge renews at a third of it. */
  readonly lockMs?: number;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Same path and same JSON body (whitespace and key order aside) hash the same. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method.toUpperCase()} ${path}\n${canonical(body)}`).digest('hex');
}
