/**
 * How a run that reaches a decline node, or leaves routing by an exit wired nowhere, ends. The reason is what the
 * payment reports, so it names the cause rather than the node: an issuer's decline is declined; running out of
 * accounts after calling some is all_accounts_failed; without calling any, why none could be called; a retry node
 * that gave up says why; a decline reached by the flow's own rules is declined_by_flow. Pure.
 */
import type { RetryStop } from './retry-node';
import type { FlowRunOutcome, FlowRunState, FlowRunStep } from './flow-run';

export interface DeclineFacts {
  /** Why a retry node of this step left by exhausted, if one did. */
  readonly retryStop: RetryStop | null;
  readonly steps: readonly FlowRunStep[];
  readonly unroutable: FlowRunState['unroutable'];
}

export function declineOutcome(nodeId: string, { retryStop, steps, unroutable }: DeclineFacts): FlowRunOutcome {
  if (retryStop) return { result: 'declined', reason: retryStop.reason, message: retryStop.message, nodeId };
  const last = [...steps].reverse().find((s) => s.type === 'acquirer' || s.type === 'route');
  // The brand budget stopped routing before a call: the card's limit, not the flow, ended the payment.
  if (last?.exit === 'error' && unroutable?.reason === 'brand_retry_limit' && last.note === unroutable.message) {
    return { result: 'failed', reason: unroutable.reason, message: unroutable.message, nodeId };
  }
  if (last?.exit === 'declined') return { result: 'declined', reason: 'issuer_declined', message: 'The issuer declined the payment.', nodeId };
  const calledAny = steps.some((s) => (s.calls?.length ?? 0) > 0);
  if (last?.exit === 'error' && calledAny) return { result: 'failed', reason: 'all_accounts_failed', message: last.note ?? 'No connector account could process the payment.', nodeId };
  if (last?.exit === 'error' && unroutable) return { result: 'failed', reason: unroutable.reason, message: unroutable.message, nodeId };
  return { result: 'failed', reason: 'declined_by_flow', message: `The flow declined the payment at node ${nodeId}.`, nodeId };
}
