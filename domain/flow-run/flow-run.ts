/**
 * One payment's run through a flow graph: where it stands, each step it took (node, exit, timings), what it waits
 * for, and how it ended. Direct routing runs as a built-in graph (direct-graph.ts), so every payment has a run.
 * The run's lifecycle is a transition table; what happens at each node is decided by the pure step function
 * (flow-step.ts), which takes the graph, the run and an input and returns the next action.
 */
import { transition, type TransitionTable } from '../shared/state-machine';
import type { FactValue } from '../flow/flow-rules';
import type { FlowNodeType } from '../flow/flow-graph';
import type { SplitEntry } from '../payment/split-entry';

/** running: the executor advances it now; waiting: it needs an input; ended: approved, declined, failed or canceled. */
export type FlowRunStatus = 'running' | 'waiting' | 'ended';
export type FlowRunTrigger = 'wait' | 'resume' | 'end';

export const FLOW_RUN_TRANSITIONS = {
  running: { wait: 'waiting', end: 'ended' },
  // A wait can also end the run without resuming it: a checkout that expires, a charge the bank lets lapse.
  waiting: { resume: 'running', end: 'ended' },
  ended: {},
} as const satisfies TransitionTable<FlowRunStatus, FlowRunTrigger>;

/**
 * What a waiting run needs before it can go on. Each kind has one way in (the resume use case) and a deadline
 * or a recovery rule of its own: an acquirer outcome left unanswered is queried by its attempt id, a timer fires
 * when due, a 3DS result, review decision or bank notice that never comes expires at `expiresAt`.
 */
export type FlowWait =
  | { readonly kind: 'acquirer_outcome'; readonly nodeId: string; readonly accountId: string; readonly attemptId: string; readonly since: string }
  | { readonly kind: 'three_ds_result'; readonly nodeId: string; readonly since: string; readonly expiresAt: string | null }
  | { readonly kind: 'review_decision'; readonly nodeId: string; readonly since: string }
  | { readonly kind: 'bank_notice'; readonly nodeId: string; readonly accountId: string; readonly attemptId: string; readonly since: string; readonly expiresAt: string | null }
  | { readonly kind: 'timer'; readonly nodeId: string; readonly since: string; readonly dueAt: string }
  /** An antifraud or zero_auth node's call in flight (flow-node-calls.ts): no money moves, so it is simply made again. */
  | { readonly kind: 'node_call'; readonly nodeId: string; readonly call: 'antifraud' | 'zero_auth'; readonly accountId: string; readonly since: string };

export type FlowWaitKind = FlowWait['kind'];

/** One call to an acquirer account made at a node, in order (a route node falls back from one to the next). */
export interface FlowRunCall {
  readonly accountId: string;
  /** The call's idempotency key at the acquirer (the payment attempt's id). */
  readonly attemptId: string;
  /** What the acquirer answered; null while the run waits for it. */
  readonly result: 'approved' | 'declined' | 'technical_failure' | 'authentication_required' | 'pending_payment' | null;
  readonly startedAt: string;
  readonly endedAt: string | null;
  readonly note?: string;
}

/** One node the run went through and the exit it left by (null: a terminal, or a wait that ended without one). */
export interface FlowRunStep {
  readonly nodeId: string;
  readonly type: FlowNodeType;
  readonly exit: string | null;
  readonly startedAt: string;
  readonly endedAt: string;
  /** The acquirer calls of an acquirer or route node, in order. */
  readonly calls?: readonly FlowRunCall[];
  /** Why the node left by the exit it did, when the exit alone does not say (no usable account, an expiry). */
  readonly note?: string;
  /** A webhook node: its data, sent as the flow.notification event when the step is recorded on the payment. */
  readonly notification?: Readonly<Record<string, unknown>>;
  /** An antifraud node: the provider's analysis, registered on the payment (origin flow_node) when the step is recorded. */
  readonly antifraud?: FlowAntifraudAnalysis;
  /** A zero_auth node: the card's verification, emitted as payment_method.verified when the step is recorded. */
  readonly verification?: FlowCardVerification;
  /** A split node: the shares it gave the payment (split-node.ts), which the payment takes when the step is recorded. */
  readonly split?: readonly SplitEntry[];
}

/** What an antifraud node's provider answered (spec, payload rule 7); `error` also stands for no answer at all. */
export interface FlowAntifraudAnalysis {
  /** The afa_ id the assessment is registered under on the payment. */
  readonly assessmentId: string;
  readonly connectorAccountId: string;
  /** The connector (slug) that analysed, or the account id when it could not be opened. */
  readonly provider: string;
  readonly recommendation: 'approve' | 'review' | 'decline' | 'error';
  readonly score: number | null;
  readonly triggeredRules: readonly string[];
}

/** A zero-value authorization's verdict on the card (spec, payload rule 8): only invalid says the card is bad. */
export interface FlowCardVerification {
  readonly status: 'valid' | 'invalid' | 'unavailable';
  readonly connectorAccountId: string;
  readonly rawCode: string | null;
}

/** How a run ended; `reason` is the payment's routing stop reason. */
export interface FlowRunOutcome {
  readonly result: 'approved' | 'declined' | 'failed' | 'canceled';
  readonly reason: string;
  readonly message: string;
  readonly nodeId: string | null;
}

/** The account that authorized the payment within the run, if any: an approve terminal needs one. */
export interface FlowRunAuthorization {
  readonly accountId: string;
  readonly attemptId: string;
}

/** Where an acquirer or route node stands in its own fallback list, with the calls made there so far. */
export interface FlowRunRouteCursor {
  readonly nodeId: string;
  readonly candidates: readonly string[];
  readonly next: number;
  readonly since: string;
  readonly calls: readonly FlowRunCall[];
}

export interface FlowRunState {
  /** null: direct routing's built-in graph. */
  readonly flow: { readonly flowId: string; readonly name: string; readonly version: number } | null;
  readonly status: FlowRunStatus;
  /** The node the run is at; null before the start and after the end. */
  readonly cursor: string | null;
  readonly route: FlowRunRouteCursor | null;
  /** Every account called so far: a later node does not call one again. */
  readonly tried: readonly string[];
  readonly variables: Readonly<Record<string, FactValue>>;
  readonly steps: readonly FlowRunStep[];
  readonly waitingFor: FlowWait | null;
  readonly authorization: FlowRunAuthorization | null;
  readonly outcome: FlowRunOutcome | null;
  /** Why the last acquirer or route node found no account to call, for the outcome when none ever was. */
  readonly unroutable: { readonly reason: string; readonly message: string } | null;
}

export function newFlowRun(flow: FlowRunState['flow']): FlowRunState {
  return { flow, status: 'running', cursor: null, route: null, tried: [], variables: {}, steps: [], waitingFor: null, authorization: null, outcome: null, unroutable: null };
}

/** The run's next lifecycle state, or an invalid_state error naming the illegal pair. */
export function nextRunStatus(run: Pick<FlowRunState, 'status'>, trigger: FlowRunTrigger): FlowRunStatus {
  return transition('flow run', FLOW_RUN_TRANSITIONS, run.status, trigger);
}

/**
 * A waiting run ended from outside the graph (the merchant voided the payment while it waited for a bank notice or a
 * buyer): no node answered, so no step is added; the run ends `canceled` at the node it waited at. Any other run is
 * returned as it is (one that already ended keeps its outcome).
 */
export function endWaitingRun(run: FlowRunState, outcome: Pick<FlowRunOutcome, 'reason' | 'message'>): FlowRunState {
  if (run.status !== 'waiting') return run;
  const nodeId = run.waitingFor?.nodeId ?? run.cursor;
  return { ...run, status: nextRunStatus(run, 'end'), waitingFor: null, cursor: null, route: null, outcome: { result: 'canceled', ...outcome, nodeId } };
}
