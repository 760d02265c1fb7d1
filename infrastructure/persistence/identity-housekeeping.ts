import type { Transactor } from '../../domain/ports/transactor';
import { IDEMPOTENCY_TTL_MS } from '../../domain/shared/idempotency';
import { entityManager } from './mikro-orm-transactor';

/**
 * Deletes rows that can no longer matter: expired challenges, spent or expired reset links, ended sessions, card
 * attempts far outside the detection window, and Idempotency-Keys (and payments' bindings to them) past their 24
 * hours (contract.md 3), which a new request reuses anyway, and rate-limit windows that ended (a new arrival starts its
 * window afresh over an ended one). Incidents and their audit trail are kept.
 * Idempotent and safe to run from several workers at once.
 */
export async function purgeIdentityLeftovers(transactor: Transactor, now: Date): Promise<Record<string, number>> {
  const day = 24 * 60 * 60 * 1000;
  const before = (ms: number) => new Date(now.getTime() - ms);
  return transactor.run(async (tx) => {
    const em = entityManager(tx);
    const count = async (sql: string, params: unknown[]) => (await em.execute<Array<{ n: number }>>(`with d as (${sql} returning 1) select count(*)::int as n from d`, params))[0]?.n ?? 0;
    return {
      challenges: await count(`delete from identity_challenges where expires_at < ?`, [before(day)]),
      passwordResets: await count(`delete from identity_password_resets where expires_at < ?`, [before(7 * day)]),
      sessions: await count(`delete from identity_sessions where expires_at < ? or revoked_at < ?`, [before(day), before(30 * day)]),
      cardAttempts: await count(`delete from security_card_attempts where at < ?`, [before(day)]),
      idempotencyKeys: await count(`delete from idempotency_keys where expires_at < ?`, [now]),
      paymentIdempotencyKeys: await count(`delete from payment_idempotency_keys where created_at < ?`, [before(IDEMPOTENCY_TTL_MS)]),
      // `expire` is milliseconds since the epoch (infrastructure/http/postgres-rate-limiter.ts).
      rateLimitWindows: await count(`delete from rate_limits where expire < ?`, [now.getTime()]),
    };
  });
}
