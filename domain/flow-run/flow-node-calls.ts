/**
 * Antifraud and zero_auth nodes: each asks one connector account something that moves no money (an analysis, a
 * zero-value authorization), and leaves by the answer. The step function returns a `call_node` action for them; the
 * executor (application/payments/authorization-run.ts) makes the call outside any transaction, under the gateway's
 * deadline, and feeds back a `node_call_outcome`. A call interrupted by a crash is simply made again (same key).
 */
import type { FlowNode } from '../flow/flow-graph';
import type { RoutableAccount, RoutingPaymentProjection } from '../payment/routing/direct-routing';
import type { FlowAntifraudAnalysis, FlowCardVerification } from './flow-run';

export type NodeCallKind = 'antifraud' | 'zero_auth';

/** What a node call answered, as the run's input. */
export type NodeCallResult =
  | { readonly call: 'antifraud'; readonly analysis: FlowAntifraudAnalysis }
  | { readonly call: 'zero_auth'; readonly verification: FlowCardVerification };

/** The exit a node call's answer leaves by: antifraud approve/review/decline/error, zero_auth valid/invalid/unavailable. */
export function exitOfNodeCall(result: NodeCallResult): string {
  return result.call === 'antifraud' ? result.analysis.recommendation : result.verification.status;
}

/**
 * Where a node that calls out goes: the call, or, for a zero_auth node that cannot verify this payment's card (no card,
 * account gone, disabled or without zero_auth), its unavailable exit at once: unavailable says nothing about the card.
 * An antifraud account is not an acquirer (the step knows only those): the executor finds out whether it can be opened.
 */
export function nodeCallOf(
  node: FlowNode,
  payment: RoutingPaymentProjection,
  accounts: readonly RoutableAccount[],
): { readonly kind: 'call'; readonly call: NodeCallKind; readonly accountId: string } | { readonly kind: 'unavailable'; readonly note: string } {
  const accountId = String(node.data.connectorAccountId ?? '');
  if (node.type === 'antifraud') return { kind: 'call', call: 'antifraud', accountId };
  if (payment.methodType !== 'card' && payment.methodType !== 'debit_card') return { kind: 'unavailable', note: `a ${payment.methodType} payment has no card to verify` };
  const account = accounts.find((a) => a.id === accountId);
  if (!account || !account.enabled || !account.capabilities.includes('zero_auth')) {
    return { kind: 'unavailable', note: `connector account ${accountId} cannot verify cards (zero_auth)` };
  }
  return { kind: 'call', call: 'zero_auth', accountId };
}

/** The step's record of the answer: the analysis or the verification the payment registers when the run is saved. */
export function stepDetailOf(result: NodeCallResult): { antifraud: FlowAntifraudAnalysis } | { verification: FlowCardVerification } {
  return result.call === 'antifraud' ? { antifraud: result.analysis } : { verification: result.verification };
}
