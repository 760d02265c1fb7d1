/** Counts requests against a limit; the key already names the limit and what it counts. */
export interface RateLimiter {
  consume(key: string, points: number, durationSeconds: number): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
  /**
   * Gives back one point consumed under the same key and limit: a limit that should count failures only consumes
   * before the attempt (so attempts in flight at once are bounded too) and refunds the ones that succeed.
   */
  refund?(key: string, points: number, durationSeconds: number): Promise<void>;
}

/** A verdict that also tells how much of the window is used: limits that count failures decide on it. */
export interface CountedVerdict {
  readonly allowed: boolean;
  /** When refused, seconds until the window ends; 0 when allowed. */
  readonly retryAfterSeconds: number;
  /** Points held under the key in the current window, this one included. */
  readonly consumedPoints: number;
  /** Seconds until the current window ends. */
  readonly resetsInSeconds: number;
}

/** A rate limiter for failure-counting limits (guess throttles): consume reports its count, refund is required. */
export interface AttemptCounter extends RateLimiter {
  consume(key: string, points: number, durationSeconds: number): Promise<CountedVerdict>;
  refund(key: string, points: number, durationSeconds: number): Promise<void>;
}
