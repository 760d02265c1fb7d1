import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { AttemptCounter, CountedVerdict } from '../../edge/http/rate-limiter';
import type { Orm } from '../persistence/orm';

/**
 * Rate limits in PostgreSQL (rate-limiter-flexible), so every edge process shares the same counters.
 * The table is created by the foundation migration. One limiter per (points, duration) pair.
 */
export class PostgresRateLimiter implements AttemptCounter {
  private readonly limiters = new Map<string, RateLimiterPostgres>();

  constructor(private readonly orm: Orm) {}

  private limiter(points: number, durationSeconds: number): RateLimiterPostgres {
    const id = `${points}/${durationSeconds}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = new RateLimiterPostgres({
        storeClient: this.orm.em.getKnex(),
        storeType: 'knex',
        tableName: 'rate_limits',
        tableCreated: true,
        points,
        duration: durationSeconds,
        keyPrefix: `rl${points}_${durationSeconds}`,
        clearExpiredByTimeout: false,
      });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  async consume(key: string, points: number, durationSeconds: number): Promise<CountedVerdict> {
    try {
      const held = await this.limiter(points, durationSeconds).consume(key, 1);
      return { allowed: true, retryAfterSeconds: 0, consumedPoints: held.consumedPoints, resetsInSeconds: Math.ceil(held.msBeforeNext / 1000) };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const resetsInSeconds = Math.ceil(rejection.msBeforeNext / 1000);
      return { allowed: false, retryAfterSeconds: resetsInSeconds, consumedPoints: rejection.consumedPoints, resetsInSeconds };
    }
  }

  async refund(key: string, points: number, durationSeconds: number): Promise<void> {
    await this.limiter(points, durationSeconds).reward(key, 1);
  }
}
