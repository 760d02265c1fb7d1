/**
 * tx2 of a driven flow run: the attempts, the run and its outcome with the events, the calls' health, and, when the
 * run now waits for something other than an acquirer (a timer, a review, a 3DS result, a bank notice), its durable
 * wait with the request it will send when it goes on. Shared by creation and every resumption.
 */
import type { Payment } from '../../domain/payment/payment';
import { nextBankPollAt } from '../../domain/payment/bank-charge-polling';
import type { FlowAction } from '../../domain/flow-run/flow-step';
import type { FlowRunWait } from '../../domain/ports/flow-run-waits';
import type { AuthorizeRequest } from '../../domain/ports/payment-recovery';
import type { Transaction } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';
import type { DrivenRun } from './authorization-run';
import { recordCalls } from './payment-attempts';
import type { PaymentDeps } from './payment-deps';
import { paymentEventToOutbox } from './payment-object';
import type { RoutingLease } from './routing-lease';
import { settleRunOutcome } from './run-outcome';
import { CapturePayment } from './capture-payment';

/** The durable wait of a run whose step ended in a `wait` action (not an acquirer's answer), else null. */
export function waitOf(payment: Payment, action: FlowAction, request: AuthorizeRequest): FlowRunWait | null {
  // An acquirer's answer or a node's call in flight is not parked: the executor is making that call right now.
  if (action.kind !== 'wait' || action.wait.kind === 'acquirer_outcome' || action.wait.kind === 'node_call') return null;
  const wait = action.wait;
  // A bank notice may never come (lost on the way): its wait falls due at the first poll of the bank, not its expiry.
  const due =
    wait.kind === 'timer'
      ? wait.dueAt
      : wait.kind === 'review_decision'
        ? null
        : wait.kind === 'bank_notice'
          ? nextBankPollAt({ since: new Date(wait.since), now: new Date(wait.since), expiresAt: wait.expiresAt ? new Date(wait.expiresAt) : null }).toISOString()
          : wait.expiresAt;
  const p = payment.view();
  return {
    paymentId: p.id,
    scope: { organizationId: p.organizationId, environment: p.environment },
    kind: wait.kind,
    nodeId: wait.nodeId,
    dueAt: due === null ? null : new Date(due),
    request,
  };
}

/** What a caller records with the outcome, in the same transaction (a checkout's saved card on approval). */
export type AlsoRecord = (tx: Transaction, payment: Payment) => Promise<void>;

export class RunRecorder {
  constructor(private readonly deps: PaymentDeps) {}

  /**
   * Records the outcome. With the lease: in ONE round trip (the lease check queued with the writes; while the lease
   * is held nobody else changes the payment, so it is not read again); if a recovery worker took the payment over,
   * the unit fails as a whole and the payment is answered as stored (the worker records the outcome). Without crash
   * recovery wired: the payment locked and read, then the outcome recorded.
   */
  async record(scope: TenantScope, payment: Payment, driven: DrivenRun, request: AuthorizeRequest, lease: RoutingLease | null, alsoRecord?: AlsoRecord): Promise<Payment> {
    const recorded = await this.recordOutcome(scope, payment, driven, request, lease, alsoRecord);
    return this.captureAtNode(scope, recorded, driven);
  }

  /**
   * A flow's capture node (approved -> capture -> approve) captures the authorization just recorded, in full, through
   * the capture pipeline (its own tx1 -> call -> tx2): a manual-capture payment leaves the run captured. Refused or
   * interrupted, the payment stays authorized and the merchant captures it (POST /v1/payments/{id}/capture).
   */
  async captureAtNode(scope: TenantScope, payment: Payment, driven: DrivenRun): Promise<Payment> {
    const p = payment.view();
    if (p.status !== 'authorized' || driven.step.action.kind !== 'end' || !driven.step.run.steps.some((s) => s.type === 'capture')) return payment;
    try {
      await new CapturePayment(this.deps).execute({ scope, paymentId: p.id });
    } catch {
      return payment;
    }
    return (await this.deps.transactor.read((tx) => this.deps.payments.find(tx, scope, p.id))) ?? payment;
  }

  private async recordOutcome(scope: TenantScope, payment: Payment, driven: DrivenRun, request: AuthorizeRequest, lease: RoutingLease | null, alsoRecord?: AlsoRecord): Promise<Payment> {
    if (!lease) {
      return this.deps.transactor.run(async (tx) => {
        const current = await this.deps.payments.find(tx, scope, payment.id, { forUpdate: true });
        if (!current) throw new Error(`payment ${payment.id} vanished between its two transactions`);
        await this.apply(tx, scope, current, driven, request);
        await alsoRecord?.(tx, current);
        return current;
      });
    }
    try {
      await this.deps.transactor.run(async (tx) => {
        await lease.settleQueued(tx, driven.attempts);
        await this.apply(tx, scope, payment, driven, request);
        await alsoRecord?.(tx, payment);
      });
      return payment;
    } catch (error) {
      if (!lease.isLeaseLost(error)) throw error;
      const current = await this.deps.transactor.read((tx) => this.deps.payments.find(tx, scope, payment.id));
      if (!current) throw new Error(`payment ${payment.id} vanished between its two transactions`);
      return current;
    }
  }

  /** tx2's writes on the payment as it stands (recovery records through here too, said `recovered`). */
  async apply(tx: Transaction, scope: TenantScope, current: Payment, driven: DrivenRun, request: AuthorizeRequest, options: { recovered?: boolean } = {}): Promise<void> {
    for (const attempt of driven.attempts) current.recordAttempt(attempt);
    settleRunOutcome(current, driven, { now: this.deps.clock.now(), newAssessmentId: () => this.deps.ids.next('afa_'), ...(options.recovered ? { recovered: true } : {}), ...this.secrets() });
    await this.deps.payments.update(tx, current);
    await this.parkIfWaiting(tx, current, driven.step.action, request);
    const events = current.pullEvents().map(paymentEventToOutbox);
    if (events.length) await this.deps.outbox.append(tx, events);
    await recordCalls(this.deps, tx, scope, driven.attempts);
  }

  /** The client secrets a payment that now awaits the buyer is given one from (run-outcome.ts). */
  secrets(): { clientSecrets?: NonNullable<PaymentDeps['checkoutSecrets']> } {
    return this.deps.checkoutSecrets ? { clientSecrets: this.deps.checkoutSecrets } : {};
  }

  /** Saves the run's wait, if its step left it waiting for something other than an acquirer. */
  async parkIfWaiting(tx: Transaction, payment: Payment, action: FlowAction, request: AuthorizeRequest): Promise<void> {
    const wait = waitOf(payment, action, request);
    if (!wait) return;
    if (!this.deps.waits) throw new Error(`payment ${payment.id} waits (${wait.kind}) but this installation keeps no flow run waits`);
    await this.deps.waits.park(tx, wait, this.deps.clock.now());
  }
}
