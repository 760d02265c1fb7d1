import { isOutcomeUnknown, type Payment, type PaymentAttempt } from '../../domain/payment/payment';
import type { AuthorizeRequest, PaymentRecoveryRepository, SettleInput } from '../../domain/ports/payment-recovery';
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
 * The routing of one payment as its holder (the creating request, or a recovery worker) drives it: every attempt
 * id is saved BEFORE its connector call (the first one with the payment in tx1, fallbacks by a small write that
 * also extends the lease), and the outcome may only be recorded while the lease is still held (`settle` in tx2).
 * Whoever holds the lease is the only one to call connectors with new attempt ids for the payment.
 */
export class RoutingLease {
  private firstUsed = false;

  constructor(
    private readonly deps: PaymentDeps,
    private readonly recovery: PaymentRecoveryDeps,
    readonly paymentId: string,
    readonly leaseOwner: string,
    private readonly first: { attemptId: string; connectorAccountId: string } | null,
  ) {}

  /** For POST /v1/payments: the first attempt's id is chosen now and saved with the payment. */
  static forCreate(deps: PaymentDeps, recovery: PaymentRecoveryDeps, paymentId: string, firstAccountId: string): RoutingLease {
    return new RoutingLease(deps, recovery, paymentId, `create:${paymentId}`, { attemptId: deps.ids.next('att_'), connectorAccountId: firstAccountId });
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
   * The attempt id to send to this account: the one saved in tx1 for the first account, else a new one saved now
   * (and the lease extended). Null when the lease was lost: stop calling connectors, the new holder finishes.
   */
  async attemptIdFor(connectorAccountId: string): Promise<string | null> {
    if (this.first && !this.firstUsed && this.first.connectorAccountId === connectorAccountId) {
      this.firstUsed = true;
      return this.first.attemptId;
    }
    this.firstUsed = true;
    const attemptId = this.deps.ids.next('att_');
    const now = this.deps.clock.now();
    const held = await this.deps.transactor.read((tx) =>
      this.recovery.store.renew(tx, {
        paymentId: this.paymentId,
        leaseOwner: this.leaseOwner,
        leaseUntil: new Date(now.getTime() + this.recovery.graceMs),
        intent: { attemptId, connectorAccountId, startedAt: now.toISOString() },
        now,
      }),
    );
    return held ? attemptId : null;
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
