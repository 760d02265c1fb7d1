/**
 * The one way a waiting flow run goes on: a timer falling due, a deadline passing, and (as they land) a 3DS result,
 * a review decision or a bank's notice all resume the run through this use case. tx1 locks the payment and its
 * wait, takes the step with the input and saves what it decided: the end (and the payment's outcome), another wait,
 * or an acquirer call whose attempt id is saved under a routing lease (crash recovery then finishes it like any
 * interrupted call). The calls are made by the same executor as at creation, outside any transaction, and tx2
 * records them. Two resumptions of one wait (two workers, a repeated request) are serialized by the payment's lock;
 * the second finds the wait gone and changes nothing.
 */
import { priorityRouteGraph } from '../../domain/flow-run/direct-graph';
import type { FlowRunState } from '../../domain/flow-run/flow-run';
import { stepFlowRun, type FlowRunInput } from '../../domain/flow-run/flow-step';
import type { FlowGraph } from '../../domain/flow/flow-graph';
import type { ThreeDsAuthentication } from '../../domain/ports/acquirer-gateway';
import type { ClaimedFlowRunWait, FlowRunWait } from '../../domain/ports/flow-run-waits';
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import { AuthorizationRun, runContext } from './authorization-run';
import type { PaymentDeps } from './payment-deps';
import { paymentEventToOutbox, paymentObject, type PaymentObject } from './payment-object';
import { RoutingLease } from './routing-lease';
import { RunRecorder } from './run-recorder';
import { CardRetryBudget } from './card-retry-budget';
import { settleRunOutcome } from './run-outcome';

export type ResumeInput = Exclude<FlowRunInput, { kind: 'start' } | { kind: 'acquirer_outcome' }>;

export interface ResumeFlowRunCommand {
  readonly scope: TenantScope;
  readonly paymentId: string;
  readonly input: ResumeInput;
  /**
   * The wait this resumption answers, when it comes from a worker that claimed it: a wait replaced since (the run
   * went on and waits for something else) is left alone.
   */
  readonly expectedWait?: Pick<FlowRunWait, 'kind' | 'nodeId'>;
  /**
   * A three_ds_result: the ECI the payment keeps, and the authentication the acquirer is sent with the authorization
   * (CAVV, XID) in memory only: neither the wait row nor the routing lease's saved request ever holds it.
   */
  readonly threeDs?: { readonly eci: string | null; readonly authentication?: ThreeDsAuthentication };
}

export class ResumeFlowRun {
  private readonly runner: AuthorizationRun;
  private readonly recorder: RunRecorder;

  constructor(private readonly deps: PaymentDeps) {
    this.runner = new AuthorizationRun(deps);
    this.recorder = new RunRecorder(deps);
  }

  async execute(command: ResumeFlowRunCommand): Promise<PaymentObject> {
    const waits = this.deps.waits;
    if (!waits) throw new Error('flow run waits are not wired in this installation');
    const { scope, paymentId, input } = command;
    const accounts = await this.deps.connectors.accounts(scope);
    const budget = await this.retryBudgetOf(scope, paymentId);

    const taken = await this.deps.transactor.run(async (tx) => {
      const payment = await this.deps.payments.find(tx, scope, paymentId, { forUpdate: true });
      if (!payment) throw new NotFoundError('payment', paymentId);
      const wait = await waits.find(tx, scope, paymentId, { forUpdate: true });
      const run = payment.view().flowRun;
      const expected = command.expectedWait;
      if (!wait || !run || run.status !== 'waiting' || (expected && (expected.kind !== wait.kind || expected.nodeId !== wait.nodeId))) {
        throw new DomainError('invalid_state', `Payment ${paymentId} does not wait for ${input.kind} (it may have just gone on).`);
      }
      const context = { ...runContext(payment, await this.graphOf(scope, run), accounts, this.deps.random ?? Math.random), retryGate: budget };
      const now = this.deps.clock.now();
      // Throws invalid_state when the run waits for another input than this one.
      const step = stepFlowRun({ ...context, now, newAttemptId: () => this.deps.ids.next('att_') }, run as FlowRunState, input);
      // The buyer's 3DS result takes the payment back to processing before the run's next move is settled.
      if (input.kind === 'three_ds_result') payment.recordThreeDsResult({ exit: input.result, eci: command.threeDs?.eci ?? null, now });
      await waits.release(tx, paymentId);
      let lease: RoutingLease | null = null;
      if (step.action.kind === 'call_acquirer') {
        payment.advanceRun(step.run, now);
        const first = { attemptId: step.action.attemptId, connectorAccountId: step.action.accountId };
        lease = this.deps.recovery ? RoutingLease.forResume(this.deps, this.deps.recovery, paymentId, first) : null;
        if (lease) await lease.open(tx, scope, wait.request, step.run.route?.candidates ?? []);
      } else {
        settleRunOutcome(payment, { step, decision: null, lastFailure: null }, { now, newAssessmentId: () => this.deps.ids.next('afa_') });
        await this.recorder.parkIfWaiting(tx, payment, step.action, wait.request);
      }
      await this.deps.payments.update(tx, payment);
      const events = payment.pullEvents().map(paymentEventToOutbox);
      if (events.length) await this.deps.outbox.append(tx, events);
      return { payment, step, context, request: wait.request, lease };
    });

    const { payment, step, context, request, lease } = taken;
    // An antifraud or zero_auth node right after the wait is driven too (its calls move no money; no lease is opened
    // for them, so an acquirer call after them here is not covered by crash recovery: docs/flows.md).
    if (step.action.kind !== 'call_acquirer' && step.action.kind !== 'call_node') return paymentObject(payment.toPrimitives());
    const first = step.action.kind === 'call_acquirer' ? [{ attemptId: step.action.attemptId, connectorAccountId: step.action.accountId, startedAt: this.deps.clock.now().toISOString() }] : [];
    const intents = lease ? lease.intents(first, { extendForSaved: false }) : { idFor: () => this.deps.ids.next('att_'), beforeCall: async () => true };
    const source = request.source;
    const card = source ? { brand: source.brand ?? null, bin: source.type === 'card' ? (source.bin ?? null) : null } : null;
    const authentication = command.threeDs?.authentication;
    const driven = await this.runner.drive({ scope, request, card, context, from: step, intents, budget, ...(authentication ? { threeDs: authentication } : {}) });
    if (driven.handedOver) {
      const current = await this.deps.transactor.read((tx) => this.deps.payments.find(tx, scope, paymentId));
      return paymentObject(current!.toPrimitives());
    }
    const stored = await this.recorder.record(scope, payment, driven, request, lease);
    return paymentObject(stored.toPrimitives());
  }

  /** The card's brand retry budget, read before the payment is locked (a retry node's call goes on here). */
  private async retryBudgetOf(scope: TenantScope, paymentId: string): Promise<CardRetryBudget> {
    if (!this.deps.retryCounts) return CardRetryBudget.unlimited(this.deps.clock);
    const payment = (await this.deps.transactor.read((tx) => this.deps.payments.find(tx, scope, paymentId)))?.view();
    const token = this.deps.waits ? (await this.deps.transactor.read((tx) => this.deps.waits!.find(tx, scope, paymentId)))?.request.source?.token ?? null : null;
    return CardRetryBudget.load({ counts: this.deps.retryCounts, clock: this.deps.clock, scope, card: payment?.card ?? null, token, amount: payment?.amount ?? 0 });
  }

  /** The graph the run started on: its published flow's version, or direct routing's over the accounts it ranked. */
  private async graphOf(scope: TenantScope, run: FlowRunState): Promise<FlowGraph> {
    if (!run.flow) return priorityRouteGraph(run.route?.candidates ?? []);
    const graph = await this.deps.flows?.graphOf(scope, run.flow.flowId, run.flow.version);
    if (!graph) throw new Error(`flow ${run.flow.flowId} version ${run.flow.version} of a waiting run cannot be read`);
    return graph;
  }
}

/**
 * The worker side of waits that fall due: a delay's timer, or the deadline of an input that did not come (a 3DS
 * result, a bank notice). Each due wait is claimed by one worker (lease) and resumes its run once, with timer_fired
 * or expired; a wait the run has left meanwhile is skipped.
 */
export class FireDueFlowRunWaits {
  constructor(
    private readonly deps: PaymentDeps,
    private readonly resume: ResumeFlowRun,
    /** How long a claim keeps other workers off a wait: above the connector deadline, as a resumption may call. */
    private readonly leaseMs: number,
  ) {}

  async claim(limit: number): Promise<ClaimedFlowRunWait[]> {
    const waits = this.deps.waits;
    if (!waits) return [];
    const now = this.deps.clock.now();
    const leaseOwner = this.deps.ids.next('frw_');
    // A bank_notice wait falls due to be polled, not to expire: CheckBankCharges claims those (check-bank-charges.ts).
    const kinds = ['timer', 'three_ds_result', 'review_decision'] as const;
    return this.deps.transactor.run((tx) => waits.claimDue(tx, { now, leaseOwner, leaseUntil: new Date(now.getTime() + this.leaseMs), limit, kinds }));
  }

  /** True when this call resumed the run; false when the run had already left the wait. */
  async fire(wait: ClaimedFlowRunWait): Promise<boolean> {
    try {
      await this.resume.execute({
        scope: wait.scope,
        paymentId: wait.paymentId,
        input: wait.kind === 'timer' ? { kind: 'timer_fired' } : { kind: 'expired' },
        expectedWait: { kind: wait.kind, nodeId: wait.nodeId },
      });
      return true;
    } catch (error) {
      if (error instanceof DomainError && error.code === 'invalid_state') return false;
      throw error;
    }
  }
}
