import { isOutcomeUnknown, type Payment, type PaymentAttempt } from '../../domain/payment/payment';
import type { AttemptIntent, AuthorizeRequest, PaymentRecoveryRepository, SettleInput } from '../../domain/ports/payment-recovery';
import type { AttemptIntents } from './authorization-run';
import type { Transaction } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from './payment-deps';

/** What the payments module wires for crash recovery (see RecoverStuckPayments). */
export interface PaymentRecoveryDeps {
  readonly store: PaymentRecoveryRepository;
  /** How long a routing holder may go without a sign of life before a worker takes over; above the connector deadline. */
  readonly graceMs: number;
}

/**
 * The routing of one payment as its holder (the creating request, or a recovery worker) drives its flow run: every
 * attempt id is saved BEFORE its connector call (the first one with the payment in tx1, the next ones by a small
 * write that also extends the lease), and the outcome may only be recorded while the lease is still held (`settle`
 * in tx2).
 * Whoever holds the lease is the only one to call connectors with new attempt ids for the payment.
 */
export class RoutingLease {
  constructor(
    private readonly deps: PaymentDeps,
    private readonly recovery: PaymentRecoveryDeps,
    readonly paymentId: string,
    readonly leaseOwner: string,
    private readonly first: { attemptId: string; connectorAccountId: string } | null,
  ) {}

  /** For POST /v1/payments: the run's first call, saved with the payment in tx1. */
  static forCreate(deps: PaymentDeps, recovery: PaymentRecoveryDeps, paymentId: string, first: { attemptId: string; connectorAccountId: string }): RoutingLease {
    return new RoutingLease(deps, recovery, paymentId, `create:${paymentId}`, first);
  }

  /** For a run resumed at a call (ResumeFlowRun): the call's attempt id, saved with the run in the resuming tx1. */
  static forResume(deps: PaymentDeps, recovery: PaymentRecoveryDeps, paymentId: string, first: { attemptId: string; connectorAccountId: string }): RoutingLease {
    return new RoutingLease(deps, recovery, paymentId, deps.ids.next('rsm_'), first);
  }

  /** tx1 (queued write): the routing row with the first intent and the request a recovery would re-send. */
  async open(tx: Transaction, scope: TenantScope, request: AuthorizeRequest, accountIds: readonly string[]): Promise<void> {
    if (!this.first) throw new Error('only a lease made for creation opens the routing');
    const now = this.deps.clock.now();
    await this.recovery.store.open(tx, {
      scope,
      paymentId: this.paymentId,
      request,
      accountIds,
      firstIntent: { ...this.first, startedAt: now.toISOString() },
      leaseOwner: this.leaseOwner,
      leaseUntil: new Date(now.getTime() + this.recovery.graceMs),
      now,
    });
  }

  /**
   * The attempt ids of the run this lease holds: those saved earlier (the first one in tx1, or those a dead holder
   * sent) are reused for their accounts, in order; a new one is saved, extending the lease, before its call.
   * `extendForSaved`: a holder that resumes another's run extends the lease before re-sending a saved attempt too.
   */
  intents(saved: readonly AttemptIntent[], options: { extendForSaved: boolean }): AttemptIntents & { notReused(): AttemptIntent[] } {
    const pending = [...saved];
    const reused = new Set<string>();
    return {
      idFor: (accountId) => {
        const index = pending.findIndex((intent) => intent.connectorAccountId === accountId);
        if (index < 0) return this.deps.ids.next('att_');
        return pending.splice(index, 1)[0]!.attemptId;
      },
      beforeCall: async (accountId, attemptId) => {
        if (saved.some((intent) => intent.attemptId === attemptId)) {
          reused.add(attemptId);
          return options.extendForSaved ? this.extend() : true;
        }
        return this.saveIntent(accountId, attemptId);
      },
      notReused: () => saved.filter((intent) => !reused.has(intent.attemptId)),
    };
  }

  /** Saves an attempt about to be sent and extends the lease; false when the lease was lost (stop calling). */
  private async saveIntent(connectorAccountId: string, attemptId: string): Promise<boolean> {
    const now = this.deps.clock.now();
    return this.deps.transactor.read((tx) =>
      this.recovery.store.renew(tx, {
        paymentId: this.paymentId,
        leaseOwner: this.leaseOwner,
        leaseUntil: new Date(now.getTime() + this.recovery.graceMs),
        intent: { attemptId, connectorAccountId, startedAt: now.toISOString() },
        now,
      }),
    );
  }

  /** Extends the lease before a call that reuses a saved attempt id (recovery). False when it was lost. */
  async extend(): Promise<boolean> {
    const now = this.deps.clock.now();
    return this.deps.transactor.read((tx) =>
      this.recovery.store.renew(tx, { paymentId: this.paymentId, leaseOwner: this.leaseOwner, leaseUntil: new Date(now.getTime() + this.recovery.graceMs), now }),
    );
  }

  /**
   * tx2, before the outcome is recorded: ends the routing if still held, and queues the reconciliation of every
   * attempt whose outcome stayed unknown (timeouts). False: another holder took over; record nothing.
   */
  async settle(tx: Transaction, attempts: readonly PaymentAttempt[]): Promise<boolean> {
    return this.recovery.store.settle(tx, this.settleInput(attempts));
  }

  /**
   * `settle` queued with tx2's writes, for a holder that records its outcome on the payment as it left it in tx1:
   * while the lease is held nobody else changes a payment in routing. If the lease was lost the unit fails as a
   * whole (`isLeaseLost`) and nothing of it is recorded.
   */
  async settleQueued(tx: Transaction, attempts: readonly PaymentAttempt[]): Promise<void> {
    await this.recovery.store.settleQueued(tx, this.settleInput(attempts));
  }

  isLeaseLost(error: unknown): boolean {
    return this.recovery.store.isLeaseLost(error);
  }

  /** `settle` plus the payment locked and read, in one round trip (tx2's first statement). */
  async settleAndLock(tx: Transaction, scope: TenantScope, attempts: readonly PaymentAttempt[]): Promise<{ held: boolean; payment: Payment | null }> {
    return this.recovery.store.settleAndLock(tx, { ...this.settleInput(attempts), scope });
  }

  private settleInput(attempts: readonly PaymentAttempt[]): SettleInput {
    return { paymentId: this.paymentId, leaseOwner: this.leaseOwner, reconcile: this.reconciliations(attempts), now: this.deps.clock.now() };
  }

  private reconciliations(attempts: readonly PaymentAttempt[]) {
    return attempts
      .filter(isOutcomeUnknown)
      .map((a) => ({ attemptId: a.id, connectorAccountId: a.connectorAccountId, reversalKey: this.deps.ids.next('op_') }));
  }
}
