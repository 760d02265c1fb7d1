/**
 * The one way a waiting flow run goes on: a timer falling due, a deadline passing, and (as they land) a 3DS result,
 * a review decision or a bank's notice all resume the run through this use case. tx1 locks the payment and its
 * wait and saves the step taken with the input (the antifraud and zero_auth nodes after the wait asked just before,
 * run-advance.ts): the end (and the payment's outcome), another wait, or an acquirer call whose attempt id is saved
 * under a routing lease (crash recovery then finishes it like any interrupted call). The calls are made by the same
 * executor as at creation, outside any transaction, and tx2 records them. Two resumptions of one wait (two workers, a repeated request) are serialized by the payment's lock;
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
import type { Payment } from '../../domain/payment/payment';
import type { AuthorizeRequest } from '../../domain/ports/payment-recovery';
import { runContext } from './authorization-run';
import type { PaymentDeps } from './payment-deps';
import { merchantPaymentObject, paymentEventToOutbox, revealWith, type PaymentObject } from './payment-object';
import { RunAdvance } from './run-advance';
import { CardRetryBudget } from './card-retry-budget';

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
  private readonly advance: RunAdvance;

  constructor(private readonly deps: PaymentDeps) {
    this.advance = new RunAdvance(deps);
  }

  async execute(command: ResumeFlowRunCommand): Promise<PaymentObject> {
    const waits = this.deps.waits;
    if (!waits) throw new Error('flow run waits are not wired in this installation');
    const { scope, paymentId, input } = command;
    const [accounts, read] = await Promise.all([
      this.deps.connectors.accounts(scope),
      this.deps.transactor.read(async (tx) => ({ payment: await this.deps.payments.find(tx, scope, paymentId), wait: await waits.find(tx, scope, paymentId) })),
    ]);
    if (!read.payment) throw new NotFoundError('payment', paymentId);
    const { wait } = read;
    const run = read.payment.view().flowRun;
    const expected = command.expectedWait;
    const refused = () => new DomainError('invalid_state', `Payment ${paymentId} does not wait for ${input.kind} (it may have just gone on).`);
    if (!wait || !run || run.status !== 'waiting' || (expected && (expected.kind !== wait.kind || expected.nodeId !== wait.nodeId))) throw refused();
    const budget = await this.retryBudgetOf(scope, read.payment, wait.request);
    const context = { ...runContext(read.payment, await this.graphOf(scope, run), accounts, this.deps.random ?? Math.random), retryGate: budget };
    // The step is taken on the run as read (throws invalid_state when it waits for another input), and the flow's
    // antifraud and zero_auth nodes ahead of its next acquirer call are asked before tx1 (run-advance.ts), so that
    // call's attempt id is saved under a routing lease like every other.
    const step = stepFlowRun({ ...context, now: this.deps.clock.now(), newAttemptId: () => this.deps.ids.next('att_') }, run as FlowRunState, input);
    const first = await this.advance.nodesAhead({ scope, request: wait.request, context, step });

    const taken = await this.deps.transactor.run(async (tx) => {
      const payment = await this.deps.payments.find(tx, scope, paymentId, { forUpdate: true });
      if (!payment) throw new NotFoundError('payment', paymentId);
      const locked = await waits.find(tx, scope, paymentId, { forUpdate: true });
      // Another resumption went first (two workers, a repeated request): the run is no longer the one stepped.
      if (!locked || locked.kind !== wait.kind || locked.nodeId !== wait.nodeId || JSON.stringify(payment.view().flowRun) !== JSON.stringify(run)) throw refused();
      const now = this.deps.clock.now();
      // The buyer's 3DS result takes the payment back to processing before the run's next move is settled.
      if (input.kind === 'three_ds_result') payment.recordThreeDsResult({ exit: input.result, eci: command.threeDs?.eci ?? null, now });
      await waits.release(tx, paymentId);
      const plan = this.advance.settle(payment, first, 'resume');
      await this.deps.payments.update(tx, payment);
      await this.advance.save(tx, scope, payment, plan, wait.request);
      const events = payment.pullEvents().map(paymentEventToOutbox);
      if (events.length) await this.deps.outbox.append(tx, events);
      return { payment, plan };
    });

    const { payment, plan } = taken;
    const source = wait.request.source;
    const card = source ? { brand: source.brand ?? null, bin: source.type === 'card' ? (source.bin ?? null) : null } : null;
    const authentication = command.threeDs?.authentication;
    const finished = await this.advance.finish({ scope, payment, plan, request: wait.request, context, card, budget, ...(authentication ? { threeDs: authentication } : {}) });
    return merchantPaymentObject(finished.payment.toPrimitives(), revealWith(this.deps.checkoutSecrets));
  }

  /** The card's brand retry budget (a retry node's call goes on here), from the payment and request as read. */
  private async retryBudgetOf(scope: TenantScope, payment: Payment, request: AuthorizeRequest): Promise<CardRetryBudget> {
    if (!this.deps.retryCounts) return CardRetryBudget.unlimited(this.deps.clock);
    const p = payment.view();
    return CardRetryBudget.load({ counts: this.deps.retryCounts, clock: this.deps.clock, scope, card: p.card ?? null, token: request.source?.token ?? null, amount: p.amount });
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
