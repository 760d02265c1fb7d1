/**
 * Acquirer and route nodes in a step (flow-step.ts): which accounts a node may call, in its order, one call at a
 * time (each with a fresh attempt id, saved before the call), and what each answer means. A technical failure moves
 * to the next account; an issuer's answer ends routing. The node is left once, as one step holding all its calls.
 */
import { DomainError } from '../shared/domain-error';
import type { FlowNode } from '../flow/flow-graph';
import type { RoutableAccount } from '../payment/routing/direct-routing';
import { orderRouteAccounts } from './route-order';
import { NO_RETRY_LIMITS } from './retry-node';
import type { FlowRunInput, FlowStepResult } from './flow-step-types';
import type { FlowRunCall, FlowWait } from './flow-run';
import type { RunDraft } from './run-draft';

type RoutingExit = 'approved' | 'declined' | 'error';

/** An acquirer or route node: its usable accounts, in its order, without those called already. */
export function enterRouting(draft: RunDraft, node: FlowNode): FlowStepResult {
  const { payment, accounts, random } = draft.context;
  // Spec, creation rule 5: debit is charged only after the cardholder authenticated at a three_ds node.
  if (payment.methodType === 'debit_card' && !draft.steps.some((s) => s.type === 'three_ds' && s.exit === 'authenticated')) {
    return unroutableAt(draft, node, 'authentication_required', 'A debit card is charged only after the cardholder authenticates (3DS); this run reaches the acquirer without it.');
  }
  const ids = node.type === 'acquirer' ? [String(node.data.connectorAccountId)] : ((node.data.connectorAccountIds as string[] | undefined) ?? []);
  const byId = new Map(accounts.map((a) => [a.id, a]));
  let usable = ids
    .map((id) => byId.get(id))
    .filter((a): a is RoutableAccount => !!a && a.enabled && a.capabilities.includes(payment.methodType) && !draft.tried.includes(a.id));
  usable = orderRouteAccounts(node, usable, random);
  if (payment.pinnedConnectorAccountId) {
    usable = usable.filter((a) => a.id === payment.pinnedConnectorAccountId);
    if (!usable.length) return unroutableAt(draft, node, 'pinned_account_unavailable', `The flow does not route to connector account ${payment.pinnedConnectorAccountId}, which the card names.`);
  }
  if (!usable.length) return unroutableAt(draft, node, 'no_account_available', `No connector account of the flow is enabled for ${payment.methodType} (node ${node.id}).`);
  if (draft.hasSplits()) {
    usable = usable.filter((a) => a.capabilities.includes('split'));
    if (!usable.length) return unroutableAt(draft, node, 'split_not_supported', 'No connector account of the flow can execute a split payment.');
  }
  draft.route = { nodeId: node.id, candidates: usable.map((a) => a.id), next: 0, since: draft.at, calls: [] };
  return callNext(draft, node);
}

/** No account can be called: the node leaves by error, keeping why for the outcome it may lead to. */
function unroutableAt(draft: RunDraft, node: FlowNode, reason: string, message: string): FlowStepResult {
  draft.unroutable = { reason, message };
  draft.route = { nodeId: node.id, candidates: [], next: 0, since: draft.at, calls: [] };
  return leaveRouting(draft, node, 'error', message);
}

function callNext(draft: RunDraft, node: FlowNode): FlowStepResult {
  // The card's brand budget is asked before every call, a fallback's included: routing stops before it is exceeded.
  const verdict = (draft.context.retryGate ?? NO_RETRY_LIMITS).verdict('call');
  if (!verdict.allowed) {
    draft.unroutable = { reason: verdict.reason, message: verdict.message };
    return leaveRouting(draft, node, 'error', verdict.message);
  }
  const route = draft.route!;
  const accountId = route.candidates[route.next]!;
  draft.tried.push(accountId);
  const attemptId = draft.context.newAttemptId(accountId);
  const call: FlowRunCall = { accountId, attemptId, result: null, startedAt: draft.at, endedAt: null };
  draft.route = { ...route, next: route.next + 1, calls: [...route.calls, call] };
  const result = draft.wait({ kind: 'acquirer_outcome', nodeId: node.id, accountId, attemptId, since: draft.at });
  return { run: result.run, action: { kind: 'call_acquirer', nodeId: node.id, accountId, attemptId } };
}

/** The acquirer answered the node's pending call. */
export function acquirerAnswered(draft: RunDraft, wait: FlowWait, node: FlowNode, input: Extract<FlowRunInput, { kind: 'acquirer_outcome' }>): FlowStepResult {
  if (wait.kind !== 'acquirer_outcome') throw new Error('unreachable: acquirer outcome without its wait');
  if (input.attemptId !== wait.attemptId) {
    throw new DomainError('invalid_state', `The flow run waits for attempt ${wait.attemptId}, not ${input.attemptId}.`);
  }
  answerCall(draft, input.outcome, input.message);
  switch (input.outcome) {
    case 'approved':
      draft.authorization = { accountId: wait.accountId, attemptId: wait.attemptId };
      return leaveRouting(draft, node, 'approved');
    case 'declined':
      return leaveRouting(draft, node, 'declined');
    case 'pending_payment':
      // Pix and boleto: the charge is issued; the bank's confirmation is the answer the node waits for.
      return draft.wait({ kind: 'bank_notice', nodeId: node.id, accountId: wait.accountId, attemptId: wait.attemptId, since: draft.at, expiresAt: input.expiresAt ?? null });
    case 'authentication_required':
      draft.record(node, 'declined', draft.route?.since ?? wait.since, { calls: draft.route?.calls ?? [], note: 'the issuer requires 3DS authentication' });
      return draft.end({
        result: 'failed',
        reason: 'authentication_required',
        message: 'The issuer requires 3DS authentication; publish a flow with a three_ds node to charge this card.',
        nodeId: node.id,
      });
    case 'technical_failure': {
      const route = draft.route;
      if (route && route.nodeId === node.id && route.next < route.candidates.length) return callNext(draft, node);
      return leaveRouting(draft, node, 'error', input.message ?? 'technical failure');
    }
  }
}

/** Writes the acquirer's answer on the node's pending call. */
function answerCall(draft: RunDraft, result: NonNullable<FlowRunCall['result']>, message: string | undefined): void {
  const route = draft.route;
  if (!route || route.calls.length === 0) return;
  const calls = [...route.calls];
  const last = calls[calls.length - 1]!;
  calls[calls.length - 1] = { ...last, result, endedAt: draft.at, ...(message ? { note: message } : {}) };
  draft.route = { ...route, calls };
}

/**
 * Leaves an acquirer or route node, as one step holding its calls. An unwired exit ends the run as the exit implies
 * (approved: approved, declined: declined, error: the end of the fallback list), as a flow wiring it to a terminal would.
 */
export function leaveRouting(draft: RunDraft, node: FlowNode, exit: RoutingExit, note?: string): FlowStepResult {
  const route = draft.route;
  draft.route = null;
  draft.record(node, exit, route?.since ?? draft.at, { calls: route?.calls ?? [], ...(note ? { note } : {}) });
  const next = draft.index.next.get(node.id)?.get(exit);
  if (next) return draft.walk(next);
  if (exit === 'approved') return draft.end({ result: 'approved', reason: 'approved', message: `Node ${node.id} approved the payment.`, nodeId: node.id });
  return draft.end(draft.declineAt(node));
}
