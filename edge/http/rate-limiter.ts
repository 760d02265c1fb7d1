/** Counts requests against a limit; the key already names the limit and what it counts. */
export interface RateLimiter {
  consume(key: string, points: number, durationSeconds: number): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
}
