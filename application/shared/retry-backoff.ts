/** Wait before retry number `retry` (0 for the first) of work that got no answer: 30 s, 1 min, 2 min ... capped at 1 hour. */
export function retryBackoffMs(retry: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, retry), 3_600_000);
}
