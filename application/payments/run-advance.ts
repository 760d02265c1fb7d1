/**
 * The ONE way a payment's flow run advances, whoever takes its step: creation (card, Pix, boleto), a checkout's
 * confirmation, ResumeFlowRun and crash recovery all go through here, so an antifraud or zero_auth node and an
 * acquirer call are handled the same everywhere:
 *
 *   1. `nodesAhead`, before tx1 and outside any transaction: the node calls (call_node) ahead of the next acquirer
 *      call. They move no money and are keyed by payment and node, so an interrupted request that saved nothing
 *      simply asks again and gets the same answer.
 *   2. `settle` (tx1, before the payment is written) and `save` (tx1, after): a call_acquirer leaves the payment in
 *      processing with the call's attempt id saved under a routing lease (crash recovery finishes it); an end or a
 *      wait is the payment's outcome, a wait parked as a durable row.
 *   3. `finish`, after tx1: the executor's calls (authorization-run.ts), each later attempt id saved under the lease
 *      before it is sent, then tx2 (run-recorder.ts) and a capture node's capture.
 *
 * Recovery resumes a saved call through `drive` and records through `recordRecovered`, the same tx2 the request path
 * runs (waits parked, capture node captured). The direct card payment pays nothing for this: with no node ahead,
 * `nodesAhead` returns at once and tx1 + tx2 stay its only round trips besides the call.
 */
import type { FlowStepResult } from '../../domain/flow-run/flow-step';
import type { Payment } from '../../domain/payment/payment';
import type { AuthorizeRequest } from '../../domain/ports/payment-recovery';
import type { ThreeDsAuthentication } from '../../domain/ports/acquirer-gateway';
import type { Transaction } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';
import { AuthorizationRun, type AttemptIntents, type DriveInput, type DrivenRun } from './authorization-run';
import type { CardRetryBudget } from './card-retry-budget';
import type { PaymentDeps } from './payment-deps';
import { RoutingLease } from './routing-lease';
import { RunRecorder, type AlsoRecord } from './run-recorder';
import { settleRunOutcome } from './run-outcome';

/** Who takes the run's step: the creating request (its lease owner is the payment), or a resumption (a fresh owner). */
export type LeaseHolder = 'create' | 'resume';

/** What tx1 decided: the acquirer call to make after it (with its lease), or nothing to call. */
export interface RunPlan {
  /** The step tx1 saved: its action is call_acquirer, wait or end (never call_node: `nodesAhead` made those). */
  readonly first: FlowStepResult;
  readonly call: { readonly attemptId: string; readonly connectorAccountId: string; readonly startedAt: string } | null;
  readonly lease: RoutingLease | null;
}

export interface FinishInput {
  readonly scope: TenantScope;
  /** The payment as tx1 saved it. */
  readonly payment: Payment;
  readonly plan: RunPlan;
  readonly request: AuthorizeRequest;
  readonly context: DriveInput['context'];
  readonly card: DriveInput['card'];
  readonly budget?: CardRetryBudget;
  readonly threeDs?: ThreeDsAuthentication;
  readonly alsoRecord?: AlsoRecord;
}

export interface Finished {
  /** The payment as recorded (or as stored, when another holder took it over). */
  readonly payment: Payment;
  /** False when tx1 already recorded the outcome (nothing to call) or another holder records it. */
  readonly recorded: boolean;
}

export class RunAdvance {
  readonly runner: AuthorizationRun;
  readonly recorder: RunRecorder;

  constructor(private readonly deps: PaymentDeps) {
    this.runner = new AuthorizationRun(deps);
    this.recorder = new RunRecorder(deps);
  }

  /** Step 1: the antifraud and zero_auth calls ahead of the next acquirer call; returns the first other action. */
  nodesAhead(input: { scope: TenantScope; request: AuthorizeRequest; context: DriveInput['context']; step: FlowStepResult }): Promise<FlowStepResult> {
    if (input.step.action.kind !== 'call_node') return Promise.resolve(input.step);
    return this.runner.callNodesAhead({ scope: input.scope, request: input.request, context: input.context, from: input.step });
  }

  /** Step 2a, in tx1 before the payment is written: what the step means for the payment, and the lease of its call. */
  settle(payment: Payment, first: FlowStepResult, holder: LeaseHolder): RunPlan {
    if (first.action.kind === 'call_node') throw new Error(`payment ${payment.id}: node calls are made before tx1 (nodesAhead)`);
    const now = this.deps.clock.now();
    if (first.action.kind !== 'call_acquirer') {
      settleRunOutcome(payment, { step: first, decision: null, lastFailure: null }, { now, newAssessmentId: () => this.deps.ids.next('afa_'), ...this.recorder.secrets() });
      return { first, call: null, lease: null };
    }
    payment.advanceRun(first.run, now);
    const call = { attemptId: first.action.attemptId, connectorAccountId: first.action.accountId };
    const recovery = this.deps.recovery;
    const lease = !recovery ? null : holder === 'create' ? RoutingLease.forCreate(this.deps, recovery, payment.id, call) : RoutingLease.forResume(this.deps, recovery, payment.id, call);
    return { first, call: { ...call, startedAt: now.toISOString() }, lease };
  }

  /** Step 2b, in tx1 after the payment is written: the call's attempt id saved under the lease, or the wait parked. */
  async save(tx: Transaction, scope: TenantScope, payment: Payment, plan: RunPlan, request: AuthorizeRequest): Promise<void> {
    if (plan.lease) await plan.lease.open(tx, scope, request, plan.first.run.route?.candidates ?? []);
    await this.recorder.parkIfWaiting(tx, payment, plan.first.action, request);
  }

  /** Step 3, after tx1: the calls (each new attempt id saved before it is sent), tx2, and a capture node's capture. */
  async finish(input: FinishInput): Promise<Finished> {
    const { scope, payment, plan } = input;
    if (!plan.call) return { payment, recorded: false };
    const intents: AttemptIntents = plan.lease
      ? plan.lease.intents([plan.call], { extendForSaved: false })
      : { idFor: () => this.deps.ids.next('att_'), beforeCall: async () => true };
    const driven = await this.runner.drive({
      scope,
      request: input.request,
      card: input.card,
      context: input.context,
      from: plan.first,
      intents,
      ...(input.budget ? { budget: input.budget } : {}),
      ...(input.threeDs ? { threeDs: input.threeDs } : {}),
    });
    if (driven.handedOver) {
      // A recovery worker took the payment over (this holder stalled past the grace period); it records the outcome.
      const current = await this.deps.transactor.read((tx) => this.deps.payments.find(tx, scope, payment.id));
      if (!current) throw new Error(`payment ${payment.id} vanished between its two transactions`);
      return { payment: current, recorded: false };
    }
    return { payment: await this.recorder.record(scope, payment, driven, input.request, plan.lease, input.alsoRecord), recorded: true };
  }

  /** Recovery's calls: the saved run driven on from the call tx1 left it at, under the recovering worker's lease. */
  drive(input: DriveInput): Promise<DrivenRun> {
    return this.runner.drive(input);
  }

  /**
   * Recovery's tx2 body, once it holds the payment locked: exactly what the request path records (attempts, the run's
   * outcome and events, a wait parked, the calls' health), said to be recovered in a failure's message.
   */
  recordRecovered(tx: Transaction, scope: TenantScope, current: Payment, driven: DrivenRun, request: AuthorizeRequest): Promise<void> {
    return this.recorder.apply(tx, scope, current, driven, request, { recovered: true });
  }

  /** After recovery's tx2: the capture node's capture, as after the request path's. */
  captureAtNode(scope: TenantScope, payment: Payment, driven: DrivenRun): Promise<Payment> {
    return this.recorder.captureAtNode(scope, payment, driven);
  }
}
