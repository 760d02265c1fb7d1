/**
 * The health shown on an account: its latest verification and the outcomes of its recent connector calls.
 * Pure: the records come from the repository, the summary is computed here. Changing a credential clears
 * the history (the old results said nothing about the new credentials).
 */
export type VerificationResult = 'valid' | 'invalid' | 'unreachable';
export type CallOutcome = 'approved' | 'declined' | 'technical_failure' | 'timeout';

export interface VerificationRecord {
  readonly result: VerificationResult;
  readonly message: string;
  readonly at: Date;
}

export interface CallRecord {
  readonly outcome: CallOutcome;
  readonly operation: string;
  readonly latencyMs: number | null;
  readonly at: Date;
}

export interface HealthHistory {
  readonly lastVerification: VerificationRecord | null;
  /** Newest first, at most RECENT_CALLS_WINDOW. */
  readonly recentCalls: readonly CallRecord[];
}

export type HealthStatus = 'unknown' | 'healthy' | 'degraded' | 'failing';

export interface HealthSummary {
  readonly status: HealthStatus;
  readonly lastVerification: { readonly result: VerificationResult; readonly message: string; readonly verifiedAt: string } | null;
  readonly recentCalls: {
    readonly window: number;
    readonly total: number;
    readonly approved: number;
    readonly declined: number;
    readonly technicalFailures: number;
    readonly timeouts: number;
    readonly averageLatencyMs: number | null;
    readonly lastCallAt: string | null;
    readonly lastFailureAt: string | null;
  };
}

export const RECENT_CALLS_WINDOW = 20;
/** Share of failed calls (technical or timeout) in the window from which the account is failing. */
export const FAILING_RATIO = 0.5;
const FAILING_MIN_CALLS = 3;

export function summarizeHealth(history: HealthHistory): HealthSummary {
  const calls = history.recentCalls.slice(0, RECENT_CALLS_WINDOW);
  const count = (outcome: CallOutcome) => calls.filter((c) => c.outcome === outcome).length;
  const technicalFailures = count('technical_failure');
  const timeouts = count('timeout');
  const failures = technicalFailures + timeouts;
  const latencies = calls.map((c) => c.latencyMs).filter((l): l is number => l !== null);
  const lastFailure = calls.find((c) => c.outcome === 'technical_failure' || c.outcome === 'timeout');
  const verification = history.lastVerification;

  let status: HealthStatus;
  if (verification && verification.result !== 'valid' && (calls.length === 0 || calls[0]!.at <= verification.at)) {
    status = 'failing';
  } else if (calls.length >= FAILING_MIN_CALLS && failures / calls.length >= FAILING_RATIO) {
    status = 'failing';
  } else if (failures > 0) {
    status = 'degraded';
  } else if (calls.length > 0 || verification?.result === 'valid') {
    status = 'healthy';
  } else {
    status = 'unknown';
  }

  return {
    status,
    lastVerification: verification
      ? { result: verification.result, message: verification.message, verifiedAt: verification.at.toISOString() }
      : null,
    recentCalls: {
      window: RECENT_CALLS_WINDOW,
      total: calls.length,
      approved: count('approved'),
      declined: count('declined'),
      technicalFailures,
      timeouts,
      averageLatencyMs: latencies.length ? Math.round(latencies.reduce((a, b) => a + b, 0) / latencies.length) : null,
      lastCallAt: calls[0]?.at.toISOString() ?? null,
      lastFailureAt: lastFailure?.at.toISOString() ?? null,
    },
  };
}
