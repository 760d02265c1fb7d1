/** Counts requests against a limit; the key already names the limit and what it counts. */
export interface RateLimiter {
  consume(key: string, points: number, durationSeconds: number): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
  /**
   * Gives back one point consumed under the same key and limit: a limit that should count failures only consumes
   * before the attempt (so attempts in flight at once are bounded too) and refunds the ones that succeed.
   */
  refund?(key: string, points: number, durationSeconds: number): Promise<void>;
}
