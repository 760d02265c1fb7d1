/**
 * The one input a step takes (flow-step.ts): `start` walks from the trigger; every other input must answer the wait
 * the run stands at (an acquirer's answer, a 3DS result, a review decision, a bank notice, a timer, a node call's
 * answer) or say its deadline passed, and the run goes on from the node that waited. Anything else is refused, so
 * a late or repeated input cannot move a run twice.
 */
import { DomainError } from '../shared/domain-error';
import type { FlowNode } from '../flow/flow-graph';
import { exitOfNodeCall, stepDetailOf } from './flow-node-calls';
import { acquirerAnswered, leaveRouting } from './routing-step';
import type { FlowRunInput, FlowStepResult } from './flow-step-types';
import { nextRunStatus, type FlowWait } from './flow-run';
import type { RunDraft } from './run-draft';

/** Which input each wait takes besides `expired`. */
const INPUT_OF_WAIT: Record<FlowWait['kind'], FlowRunInput['kind']> = {
  acquirer_outcome: 'acquirer_outcome',
  three_ds_result: 'three_ds_result',
  review_decision: 'review_decision',
  bank_notice: 'bank_notice',
  timer: 'timer_fired',
  node_call: 'node_call_outcome',
};

export function applyInput(draft: RunDraft, input: FlowRunInput): FlowStepResult {
  if (draft.status === 'ended') throw new DomainError('invalid_state', 'The flow run has ended; it takes no more input.');
  if (input.kind === 'start') {
    if (draft.status !== 'running' || draft.cursor !== null || draft.steps.length > 0) {
      throw new DomainError('invalid_state', 'The flow run has already started.');
    }
    const trigger = [...draft.index.nodes.values()].find((node) => node.type === 'trigger');
    if (!trigger) return draft.end({ result: 'failed', reason: 'flow_incomplete', message: 'The flow has no trigger node.', nodeId: null });
    return draft.walk(trigger);
  }
  const wait = draft.waitingFor;
  if (draft.status !== 'waiting' || !wait) throw new DomainError('invalid_state', `The flow run is not waiting for anything; ${input.kind} cannot resume it.`);
  if (input.kind !== 'expired' && INPUT_OF_WAIT[wait.kind] !== input.kind) {
    throw new DomainError('invalid_state', `The flow run waits for ${wait.kind} at node ${wait.nodeId}, not for ${input.kind}.`);
  }
  const node = draft.node(wait.nodeId);
  if (input.kind === 'expired') return expire(draft, wait, node);
  draft.status = nextRunStatus({ status: draft.status }, 'resume');
  draft.waitingFor = null;
  switch (input.kind) {
    case 'acquirer_outcome':
      return acquirerAnswered(draft, wait, node, input);
    case 'three_ds_result':
      return draft.leave(node, input.result, wait.since);
    case 'review_decision':
      return draft.leave(node, input.decision, wait.since, input.note ? { note: input.note } : {});
    case 'timer_fired':
      if (node.type === 'retry') return retryFired(draft, node, wait.since);
      return draft.leave(node, 'next', wait.since);
    case 'node_call_outcome':
      if (wait.kind !== 'node_call' || wait.call !== input.result.call) throw new DomainError('invalid_state', `The flow run waits for ${wait.kind} at node ${wait.nodeId}, not for a ${input.result.call} answer.`);
      return draft.leave(node, exitOfNodeCall(input.result), wait.since, stepDetailOf(input.result));
    case 'bank_notice':
      if (wait.kind !== 'bank_notice') throw new Error('unreachable: bank notice without its wait');
      if (input.status === 'expired') return expire(draft, wait, node);
      draft.authorization = { accountId: wait.accountId, attemptId: wait.attemptId };
      return leaveRouting(draft, node, 'approved');
  }
}

/** A wait's deadline passed: only a bank charge and a 3DS challenge have one, and each ends the run its own way. */
function expire(draft: RunDraft, wait: FlowWait, node: FlowNode): FlowStepResult {
  draft.waitingFor = null;
  const route = draft.route;
  draft.record(node, null, route?.since ?? wait.since, { ...(route ? { calls: route.calls } : {}), note: `${wait.kind} expired` });
  if (wait.kind === 'bank_notice') return draft.end({ result: 'canceled', reason: 'expired', message: 'The charge expired without payment.', nodeId: node.id });
  if (wait.kind === 'three_ds_result') return draft.end({ result: 'failed', reason: 'authentication_expired', message: 'The buyer did not authenticate in time.', nodeId: node.id });
  throw new DomainError('invalid_state', `A ${wait.kind} wait has no deadline to pass.`);
}

/** The retry's delay is over: routing starts afresh, so the accounts called before may be called again. */
function retryFired(draft: RunDraft, node: FlowNode, since: string): FlowStepResult {
  draft.tried.length = 0;
  draft.unroutable = null;
  return draft.leave(node, 'retry', since);
}
