/**
 * The run as one step changes it (flow-step.ts). The step's modules (graph-walk.ts, routing-step.ts,
 * resume-input.ts) write the draft as they go; it ends the step in one of the two ways a step can end, a wait or an
 * end, and returns the run as it now stands. The run passed in is never written: its arrays are copied first.
 */
import { DomainError } from '../shared/domain-error';
import { indexGraph, type FlowNode, type IndexedGraph } from '../flow/flow-graph';
import type { FactValue, FlowPaymentFacts } from '../flow/flow-rules';
import type { RetryStop } from './retry-node';
import type { FlowStepContext, FlowStepResult } from './flow-step-types';
import { declineOutcome } from './decline-outcome';
import { nextRunStatus, type FlowRunOutcome, type FlowRunState, type FlowRunStep, type FlowWait } from './flow-run';

/**
 * How the walk goes on from a node (graph-walk.ts). Passed in rather than imported: the walk leads into routing
 * and routing back into the walk, and the domain's modules may not import each other in a circle.
 */
export type WalkFrom = (draft: RunDraft, node: FlowNode) => FlowStepResult;

/** What a step may keep on a node it leaves, besides its exit and timings. */
export type StepDetail = Pick<FlowRunStep, 'calls' | 'note' | 'notification' | 'antifraud' | 'verification' | 'split'>;

export class RunDraft {
  readonly index: IndexedGraph;
  status: FlowRunState['status'];
  cursor: string | null;
  route: FlowRunState['route'];
  readonly tried: string[];
  readonly variables: Record<string, FactValue>;
  readonly steps: FlowRunStep[];
  waitingFor: FlowWait | null;
  authorization: FlowRunState['authorization'];
  outcome: FlowRunOutcome | null;
  unroutable: FlowRunState['unroutable'];
  /** Why a retry node of this step left by exhausted, for the decline it leads to. */
  retryStop: RetryStop | null = null;
  /** The step's one instant: every step recorded and every deadline set in it counts from here. */
  readonly at: string;

  constructor(readonly context: FlowStepContext, private readonly run: FlowRunState, private readonly walkFrom: WalkFrom) {
    this.index = 'next' in context.graph ? context.graph : indexGraph(context.graph);
    this.status = run.status;
    this.cursor = run.cursor;
    this.route = run.route;
    this.tried = [...run.tried];
    this.variables = { ...run.variables };
    this.steps = [...run.steps];
    this.waitingFor = run.waitingFor;
    this.authorization = run.authorization;
    this.outcome = run.outcome;
    this.unroutable = run.unroutable;
    this.at = context.now.toISOString();
  }

  /** Walks on from `node` (a new walk, as when a run resumes there). */
  walk(node: FlowNode): FlowStepResult {
    return this.walkFrom(this, node);
  }

  /** Leaves a node that waited (3DS, review, timer, node call) or a retry node by `exit`; an unwired exit stops the flow. */
  leave(node: FlowNode, exit: string, since: string, detail: Pick<FlowRunStep, 'note' | 'antifraud' | 'verification'> = {}): FlowStepResult {
    this.record(node, exit, since, detail);
    const next = this.index.next.get(node.id)?.get(exit);
    if (!next) return this.end(this.stopsAt(node, exit));
    return this.walk(next);
  }

  /** The outcome of a flow whose `exit` of `node` leads nowhere: a stored graph publishing would have refused. */
  stopsAt(node: FlowNode, exit: string): FlowRunOutcome {
    return { result: 'failed', reason: 'flow_incomplete', message: `The flow stops at ${node.id} (port ${exit} leads nowhere).`, nodeId: node.id };
  }

  wait(wait: FlowWait): FlowStepResult {
    this.status = nextRunStatus({ status: this.status }, 'wait');
    this.waitingFor = wait;
    this.cursor = wait.nodeId;
    return { run: this.snapshot(), action: { kind: 'wait', wait } };
  }

  end(outcome: FlowRunOutcome): FlowStepResult {
    this.status = nextRunStatus({ status: this.status }, 'end');
    this.waitingFor = null;
    this.route = null;
    this.cursor = null;
    this.outcome = outcome;
    return { run: this.snapshot(), action: { kind: 'end', outcome } };
  }

  /** How a run that reaches `node`, a decline or a routing exit wired nowhere, ends (decline-outcome.ts). */
  declineAt(node: FlowNode): FlowRunOutcome {
    return declineOutcome(node.id, { retryStop: this.retryStop, steps: this.steps, unroutable: this.unroutable });
  }

  record(node: FlowNode, exit: string | null, since: string, detail: StepDetail = {}): void {
    this.steps.push({ nodeId: node.id, type: node.type, exit, startedAt: since, endedAt: this.at, ...detail });
  }

  node(id: string): FlowNode {
    const node = this.index.nodes.get(id);
    if (!node) throw new DomainError('invalid_state', `The flow run stands at node ${id}, which its graph does not have.`);
    return node;
  }

  /** The payment's own splits, or those a split node of this run gave it: only split-capable accounts route it. */
  hasSplits(): boolean {
    return this.context.payment.hasSplits || this.steps.some((s) => s.split !== undefined);
  }

  /** What conditions test: after a split node, hasSplits is true as it will be on the saved payment. */
  facts(): FlowPaymentFacts {
    return this.hasSplits() && !this.context.facts.hasSplits ? { ...this.context.facts, hasSplits: true } : this.context.facts;
  }

  variableMap(): Map<string, FactValue> {
    return new Map(Object.entries(this.variables));
  }

  private snapshot(): FlowRunState {
    return {
      flow: this.run.flow,
      status: this.status,
      cursor: this.cursor,
      route: this.route,
      tried: this.tried,
      variables: this.variables,
      steps: this.steps,
      waitingFor: this.waitingFor,
      authorization: this.authorization,
      outcome: this.outcome,
      unroutable: this.unroutable,
    };
  }
}
