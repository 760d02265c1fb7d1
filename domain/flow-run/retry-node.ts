/**
 * The retry node (contract.md 4: exits retry/exhausted). Reached after an acquirer's decline, it leads back to an
 * earlier acquirer or route after a durable delay (the run's timer wait, like a delay node), or out by `exhausted`
 * when its attempts are spent, the decline is irreversible (ABECS) or the card's brand budget forbids another try
 * (domain/payment/retry/brand-retry-rules.ts). The loop it closes is the only one publishing admits, bounded by
 * maxAttempts. Pure.
 */
import type { FlowNode } from '../flow/flow-graph';
import { RETRY_ALLOWED, type RetryVerdict } from '../payment/retry/brand-retry-rules';
import type { FlowRunStep } from './flow-run';

/**
 * What the executor knows of the card that the step function does not: its brand's retry budget (counts shared by
 * every process) and the last decline's reversibility. `call`: before any call to an acquirer (a first call, a
 * fallback, a retry's call); `retry`: at a retry node.
 */
export interface RetryGate {
  verdict(use: 'call' | 'retry'): RetryVerdict;
}

export const NO_RETRY_LIMITS: RetryGate = { verdict: () => RETRY_ALLOWED };

/** Why a run left a retry node by `exhausted`: the payment's routing stop reason when the run then declines. */
export interface RetryStop {
  readonly reason: 'retries_exhausted' | 'irreversible_decline' | 'brand_retry_limit';
  readonly message: string;
}

export type RetryDecision = { readonly kind: 'wait'; readonly dueAt: string } | { readonly kind: 'exhausted'; readonly stop: RetryStop };

/** How many times the run already left this node by `retry`. */
export function retriesTaken(steps: readonly FlowRunStep[], nodeId: string): number {
  return steps.filter((s) => s.nodeId === nodeId && s.exit === 'retry').length;
}

export function decideRetry(node: FlowNode, steps: readonly FlowRunStep[], gate: RetryGate, now: Date): RetryDecision {
  const max = Number(node.data.maxAttempts ?? 0);
  const taken = retriesTaken(steps, node.id);
  if (taken >= max) return { kind: 'exhausted', stop: { reason: 'retries_exhausted', message: `Retry node ${node.id} spent its ${max} attempts.` } };
  const verdict = gate.verdict('retry');
  if (!verdict.allowed) return { kind: 'exhausted', stop: { reason: verdict.reason, message: verdict.message } };
  const minutes = Number(node.data.intervalMinutes ?? 0);
  return { kind: 'wait', dueAt: new Date(now.getTime() + Math.max(0, minutes) * 60_000).toISOString() };
}
