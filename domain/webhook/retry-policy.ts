/** Seconds before attempts 2..7 (spec: Events, Acknowledgement and retry). */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = [30, 120, 600, 3600, 21600, 86400];
/** Plus or minus 20 percent, as a constant so it is not tunable away from the spec. */
export const RETRY_JITTER = 0.2;

export interface RetryPolicy {
  /** Seconds to wait before attempt n+2 after attempt n+1 failed; its length + 1 is the attempt budget. */
  readonly scheduleSeconds: readonly number[];
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { scheduleSeconds: DEFAULT_RETRY_SCHEDULE_SECONDS };

export function maxAttempts(policy: RetryPolicy): number {
  return policy.scheduleSeconds.length + 1;
}

export type RetryDecision =
  | { readonly kind: 'retry'; readonly nextAttempt: number; readonly nextRetryAt: Date; readonly delayMs: number }
  | { readonly kind: 'exhausted' };

/**
 * What happens after attempt `attemptNumber` (1-based) failed at `failedAt`. `random` returns [0, 1)
 * and is injected so tests pin the jitter; 0.5 gives the nominal delay, 0 gives -20 %, ->1 gives +20 %.
 */
export function decideAfterFailure(policy: RetryPolicy, attemptNumber: number, failedAt: Date, random: () => number): RetryDecision {
  if (attemptNumber >= maxAttempts(policy)) return { kind: 'exhausted' };
  const nominalMs = policy.scheduleSeconds[attemptNumber - 1] * 1000;
  const factor = 1 + RETRY_JITTER * (2 * random() - 1);
  const delayMs = Math.round(nominalMs * factor);
  return { kind: 'retry', nextAttempt: attemptNumber + 1, nextRetryAt: new Date(failedAt.getTime() + delayMs), delayMs };
}

export const AUTO_DISABLE_CONSECUTIVE_FAILURES = 20;
export const AUTO_DISABLE_WITHOUT_SUCCESS_MS = 3 * 24 * 60 * 60 * 1000;

export interface EndpointHealth {
  readonly consecutiveFailures: number;
  readonly lastSuccessAt: Date | null;
  readonly createdAt: Date;
}

/**
 * Auto-disable rule (spec: Webhook endpoint status): both 20 consecutive failures AND 3 days without a successful
 * delivery, counted from the last success or, if none, from registration. Either alone keeps the endpoint on.
 */
export function shouldAutoDisable(health: EndpointHealth, now: Date): boolean {
  const since = (health.lastSuccessAt ?? health.createdAt).getTime();
  return health.consecutiveFailures >= AUTO_DISABLE_CONSECUTIVE_FAILURES && now.getTime() - since >= AUTO_DISABLE_WITHOUT_SUCCESS_MS;
}

export function autoDisableReason(health: EndpointHealth): string {
  return `${health.consecutiveFailures} consecutive failed deliveries and no successful delivery for 3 days`;
}
