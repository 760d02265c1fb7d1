/**
 * The step function of a flow run: given the graph, the run and one input, it walks the graph as far as it can
 * without the outside world and returns the run as it now stands with the one action the executor must take:
 * call an acquirer account (with a fresh attempt id, saved before the call), wait for an input, or end.
 * Conditions, switches and variables are decided here; every other input (an acquirer's answer, a 3DS result, a
 * review decision, a bank notice, a timer) re-enters through the same function, so a run can pause at any
 * node and resume later, in another process, from what was saved. Pure: the caller passes time and ids.
 *
 * The step is written in parts: the input it takes (resume-input.ts), the walk over decided nodes (graph-walk.ts),
 * acquirer and route nodes (routing-step.ts), how a decline ends (decline-outcome.ts), all writing one draft of the
 * run (run-draft.ts); the vocabulary is in flow-step-types.ts.
 */
import type { FlowStepContext, FlowRunInput, FlowStepResult } from './flow-step-types';
import type { FlowRunState } from './flow-run';
import { walkFrom } from './graph-walk';
import { applyInput } from './resume-input';
import { RunDraft } from './run-draft';

export type { FlowStepContext, AcquirerCallOutcome, FlowRunInput, FlowAction, FlowStepResult } from './flow-step-types';

/**
 * Node types the step function runs. Publishing (domain/flow/publish-check.ts, RUNNABLE_NODE_TYPES) admits those of
 * them whose capability is complete; a unit test keeps the publishable ones a subset of these.
 */
export const EXECUTABLE_NODE_TYPES = ['trigger', 'condition', 'switch', 'set_variable', 'acquirer', 'route', 'three_ds', 'review', 'delay', 'retry', 'webhook', 'antifraud', 'zero_auth', 'capture', 'split', 'approve', 'decline'] as const;

export function stepFlowRun(context: FlowStepContext, run: FlowRunState, input: FlowRunInput): FlowStepResult {
  return applyInput(new RunDraft(context, run, walkFrom), input);
}
