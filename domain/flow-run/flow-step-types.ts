/**
 * The step function's vocabulary (flow-step.ts): what it steps over, the inputs a run takes and the actions it asks
 * the executor for. Kept apart so the walker itself stays readable.
 */
import type { FlowGraph, IndexedGraph } from '../flow/flow-graph';
import type { FlowPaymentFacts } from '../flow/flow-rules';
import type { RoutableAccount, RoutingPaymentProjection } from '../payment/routing/direct-routing';
import type { RetryGate } from './retry-node';
import type { NodeCallKind, NodeCallResult } from './flow-node-calls';
import type { FlowRunOutcome, FlowRunState, FlowWait } from './flow-run';

export interface FlowStepContext {
  readonly graph: FlowGraph | IndexedGraph;
  readonly payment: RoutingPaymentProjection;
  readonly facts: FlowPaymentFacts;
  /** The environment's acquirer accounts, enabled or not. */
  readonly accounts: readonly RoutableAccount[];
  /** A number in [0, 1), for weighted routes. */
  readonly random: () => number;
  /**
   * The attempt id (idempotency key) for a call to this account: a fresh one, or, for a run recovered after a crash,
   * the one already saved (and perhaps sent) for the account, so the acquirer answers that attempt instead of a second.
   */
  readonly newAttemptId: (accountId: string) => string;
  readonly now: Date;
  /** How long the buyer has to authenticate at a three_ds node; null: no deadline of the run's own. */
  readonly threeDsTimeoutSeconds?: number | null;
  /** The card's brand retry budget and last decline (retry-node.ts); absent: nothing limits retries but maxAttempts. */
  readonly retryGate?: RetryGate;
  /**
   * The recipients named by the graph's split nodes that exist in the environment now (split-node.ts); absent: not
   * looked up, publishing's check stands.
   */
  readonly recipientIds?: ReadonlySet<string>;
}

/** The outcome of one acquirer call, as the pipeline classified it. */
export type AcquirerCallOutcome = 'approved' | 'declined' | 'technical_failure' | 'authentication_required' | 'pending_payment';

export type FlowRunInput =
  | { readonly kind: 'start' }
  | {
      readonly kind: 'acquirer_outcome';
      readonly attemptId: string;
      readonly outcome: AcquirerCallOutcome;
      readonly message?: string;
      /** pending_payment: when the issued charge lapses (the bank_notice wait's deadline). */
      readonly expiresAt?: string | null;
    }
  | { readonly kind: 'three_ds_result'; readonly result: 'authenticated' | 'failed' | 'unavailable' }
  /** A merchant's decision at a review node; the note (max 500 characters) is kept on the run's step. */
  | { readonly kind: 'review_decision'; readonly decision: 'approved' | 'declined'; readonly note?: string | null }
  | { readonly kind: 'bank_notice'; readonly status: 'paid' | 'expired' }
  | { readonly kind: 'timer_fired' }
  /** The wait's deadline passed without its input. */
  | { readonly kind: 'expired' }
  /** An antifraud or zero_auth node's answer (flow-node-calls.ts). */
  | { readonly kind: 'node_call_outcome'; readonly result: NodeCallResult };

export type FlowAction =
  | { readonly kind: 'call_acquirer'; readonly nodeId: string; readonly accountId: string; readonly attemptId: string }
  /** An antifraud analysis or a zero-value authorization at a node: no money moves. */
  | { readonly kind: 'call_node'; readonly nodeId: string; readonly call: NodeCallKind; readonly accountId: string }
  | { readonly kind: 'wait'; readonly wait: FlowWait }
  | { readonly kind: 'end'; readonly outcome: FlowRunOutcome };

export interface FlowStepResult {
  readonly run: FlowRunState;
  readonly action: FlowAction;
}
