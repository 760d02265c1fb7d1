/**
 * How the service learns what happened to a Pix or boleto charge: it asks the bank (QueryCharge), always. A notice
 * from the bank (inbound webhook or core.v1 callback) is only a reason to ask now, so a forged notice pays nothing; a
 * poll on a schedule (bank-charge-polling.ts) asks anyway, so a lost notice delays a payment but never loses it. The
 * open charge's flow_run_waits row is the durable schedule: its due_at is the next poll, claimed by one worker
 * (lease), put off again while the charge waits. What the bank says resumes the run through ResumeFlowRun: paid ->
 * the approved exit -> captured; lapsed -> canceled. Past its expiry on the service's clock, the charge is removed at
 * the bank before the payment is canceled, so a payer cannot pay what the service gave up (a payer who paid first
 * wins). A payment the bank reports paid after it ended unpaid is recorded as a late payment, never dropped.
 */
import { nextBankPollAt, type BankPollSchedule } from '../../domain/payment/bank-charge-polling';
import type { Payment } from '../../domain/payment/payment';
import type { ChargeStatusOutput } from '../../domain/ports/acquirer-gateway';
import type { ClaimedFlowRunWait } from '../../domain/ports/flow-run-waits';
import { DomainError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from './payment-deps';
import { paymentEventToOutbox } from './payment-object';
import { ResumeFlowRun, type ResumeInput } from './resume-flow-run';

export type BankCheckResult = 'paid' | 'expired' | 'awaiting_payment' | 'late_payment_recorded' | 'not_open' | 'no_answer';

export interface CheckBankChargesOptions {
  /** Who holds the claimed polls (one per worker process). */
  readonly owner: string;
  /** How long a claimed poll is this worker's before another may take it (default 60 s). */
  readonly leaseMs?: number;
  readonly schedule?: BankPollSchedule;
}

export class CheckBankCharges {
  private readonly resume: ResumeFlowRun;

  constructor(
    private readonly deps: PaymentDeps,
    private readonly options: CheckBankChargesOptions,
  ) {
    this.resume = new ResumeFlowRun(deps);
  }

  /** Open charges whose poll is due, leased to this worker. */
  async claimDue(limit: number): Promise<ClaimedFlowRunWait[]> {
    const waits = this.requireWaits();
    const now = this.deps.clock.now();
    const leaseUntil = new Date(now.getTime() + (this.options.leaseMs ?? 60_000));
    return this.deps.transactor.run((tx) => waits.claimDue(tx, { now, leaseOwner: this.options.owner, leaseUntil, limit, kinds: ['bank_notice'] }));
  }

  /** One due poll: asks the bank; a charge still open is put off to its next poll. */
  async poll(wait: ClaimedFlowRunWait): Promise<BankCheckResult> {
    const result = await this.check(wait.scope, wait.paymentId);
    if (result === 'awaiting_payment' || result === 'no_answer') {
      const payment = await this.read(wait.scope, wait.paymentId);
      const run = payment?.view().flowRun;
      const since = run?.waitingFor?.since ? new Date(run.waitingFor.since) : this.deps.clock.now();
      const expiresAt = payment?.view().bankCharge?.expiresAt;
      const now = this.deps.clock.now();
      const dueAt = nextBankPollAt({ since, now, expiresAt: expiresAt ? new Date(expiresAt) : null, ...(this.options.schedule ? { schedule: this.options.schedule } : {}) });
      // At its expiry the charge is settled on the next look; a bank that does not answer is asked again later.
      const due = dueAt.getTime() <= now.getTime() ? new Date(now.getTime() + (this.options.schedule?.minIntervalMs ?? 60_000)) : dueAt;
      await this.deps.transactor.run((tx) => this.requireWaits().postpone(tx, { paymentId: wait.paymentId, leaseOwner: this.options.owner, dueAt: due, now }));
    }
    return result;
  }

  /** Asks the bank about the payment's charge and acts on the answer (a notice cited it, or its poll fell due). */
  async check(scope: TenantScope, paymentId: string): Promise<BankCheckResult> {
    const payment = await this.read(scope, paymentId);
    const p = payment?.view();
    if (!p || !p.bankCharge || !p.connectorAccountId || !p.acquirer.acquirerPaymentId) return 'not_open';
    if (p.status !== 'requires_action' && p.status !== 'canceled') return 'not_open';
    const opened = await this.deps.connectors.open(scope, p.connectorAccountId).catch(() => null);
    if (!opened) return 'no_answer';
    const { gateway, credentials } = opened;
    const acquirerPaymentId = p.acquirer.acquirerPaymentId;
    let bank: ChargeStatusOutput;
    try {
      bank = await gateway.queryCharge({ credentials, acquirerPaymentId });
    } catch {
      return 'no_answer';
    }
    if (p.status === 'canceled') return bank.status === 'paid' ? this.recordLatePayment(scope, paymentId, bank) : 'not_open';
    if (bank.status === 'paid') return this.resumeWith(scope, paymentId, { kind: 'bank_notice', status: 'paid' }, 'paid');
    if (bank.status === 'expired' || bank.status === 'canceled') return this.resumeWith(scope, paymentId, { kind: 'bank_notice', status: 'expired' }, 'expired');
    if (bank.status !== 'awaiting_payment') return 'no_answer';
    if (this.deps.clock.now().getTime() < Date.parse(p.bankCharge.expiresAt)) return 'awaiting_payment';
    // Expired on the service's clock: removed at the bank first; a payer who paid in the meantime is captured.
    let removed: ChargeStatusOutput;
    try {
      removed = await gateway.cancelCharge({ credentials, idempotencyKey: `${paymentId}:expire`, acquirerPaymentId });
    } catch {
      return 'no_answer';
    }
    if (removed.status === 'paid') return this.resumeWith(scope, paymentId, { kind: 'bank_notice', status: 'paid' }, 'paid');
    return this.resumeWith(scope, paymentId, { kind: 'expired' }, 'expired');
  }

  private async resumeWith(scope: TenantScope, paymentId: string, input: ResumeInput, result: BankCheckResult): Promise<BankCheckResult> {
    try {
      await this.resume.execute({ scope, paymentId, input, expectedWait: { kind: 'bank_notice', nodeId: this.nodeOf(await this.read(scope, paymentId)) } });
      return result;
    } catch (error) {
      // Another notice, poll or void resumed it first: nothing more to do.
      if (error instanceof DomainError && error.code === 'invalid_state') return 'not_open';
      throw error;
    }
  }

  private async recordLatePayment(scope: TenantScope, paymentId: string, bank: ChargeStatusOutput): Promise<BankCheckResult> {
    const recorded = await this.deps.transactor.run(async (tx) => {
      const payment = await this.deps.payments.find(tx, scope, paymentId, { forUpdate: true });
      if (!payment || !payment.recordLatePayment({ amount: bank.paidAmount, paidAt: bank.paidAt, now: this.deps.clock.now() })) return false;
      await this.deps.payments.update(tx, payment);
      await this.deps.outbox.append(tx, payment.pullEvents().map(paymentEventToOutbox));
      return true;
    });
    return recorded ? 'late_payment_recorded' : 'not_open';
  }

  private nodeOf(payment: Payment | null): string {
    return payment?.view().flowRun?.waitingFor?.nodeId ?? '';
  }

  private read(scope: TenantScope, paymentId: string): Promise<Payment | null> {
    return this.deps.transactor.read((tx) => this.deps.payments.find(tx, scope, paymentId));
  }

  private requireWaits() {
    if (!this.deps.waits) throw new Error('flow run waits are not wired in this installation');
    return this.deps.waits;
  }
}
