/**
 * An in-memory PaymentRecoveryRepository for use-case unit tests, answering as the SQL one does: routings leased to
 * one owner (renew and settle only while it holds them), expired leases claimed by recovery, unknown outcomes queued
 * for reconciliation and leased to one worker at a time.
 */
import type { AttemptIntent, AuthorizeRequest, InFlightRouting, PaymentRecoveryRepository, ReconciliationTask, SettleInput } from '../../domain/ports/payment-recovery';
import type { Transaction } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentRecoveryDeps } from '../../application/payments/routing-lease';
import type { InMemoryPayments } from './payment-fakes';

interface Routing {
  scope: TenantScope;
  paymentId: string;
  request: AuthorizeRequest;
  accountIds: readonly string[];
  intents: AttemptIntent[];
  leaseOwner: string;
  leaseUntil: number;
  recoveries: number;
}

export interface StoredReconciliation {
  attemptId: string;
  paymentId: string;
  scope: TenantScope;
  connectorAccountId: string;
  request: AuthorizeRequest;
  reversalKey: string;
  status: string;
  tries: number;
  nextAt: number;
  leaseOwner: string | null;
  leaseUntil: number;
  detail: Record<string, unknown> | null;
}

export class LeaseLostError extends Error {
  constructor(paymentId: string) {
    super(`the routing lease of ${paymentId} was taken over`);
  }
}

export class InMemoryPaymentRecovery implements PaymentRecoveryRepository {
  readonly routings = new Map<string, Routing>();
  readonly reconciliations = new Map<string, StoredReconciliation>();
  /** Every renew asked for, held or not: a new intent is saved before its call, a reused one only extends. */
  readonly renewals: Array<{ leaseOwner: string; intent: AttemptIntent | null; held: boolean }> = [];
  /** Set to make the next settle fail as a process dying between the calls and tx2 would (nothing recorded). */
  crashOnSettle = false;

  constructor(private readonly payments: InMemoryPayments) {}

  async open(_tx: Transaction, input: Parameters<PaymentRecoveryRepository['open']>[1]) {
    this.routings.set(input.paymentId, {
      scope: input.scope,
      paymentId: input.paymentId,
      request: input.request,
      accountIds: [...input.accountIds],
      intents: [input.firstIntent],
      leaseOwner: input.leaseOwner,
      leaseUntil: input.leaseUntil.getTime(),
      recoveries: 0,
    });
  }

  async renew(_tx: Transaction, input: Parameters<PaymentRecoveryRepository['renew']>[1]) {
    const routing = this.routings.get(input.paymentId);
    const held = routing?.leaseOwner === input.leaseOwner;
    this.renewals.push({ leaseOwner: input.leaseOwner, intent: input.intent ?? null, held });
    if (!routing || !held) return false;
    routing.leaseUntil = input.leaseUntil.getTime();
    if (input.intent) routing.intents.push(input.intent);
    return true;
  }

  async settle(_tx: Transaction, input: SettleInput) {
    if (this.crashOnSettle) {
      this.crashOnSettle = false;
      throw new Error('process died before tx2');
    }
    const routing = this.routings.get(input.paymentId);
    if (!routing || routing.leaseOwner !== input.leaseOwner) return false;
    this.routings.delete(input.paymentId);
    for (const r of input.reconcile) {
      if (this.reconciliations.has(r.attemptId)) continue;
      this.reconciliations.set(r.attemptId, {
        ...r,
        paymentId: routing.paymentId,
        scope: routing.scope,
        request: routing.request,
        status: 'pending',
        tries: 0,
        nextAt: input.now.getTime(),
        leaseOwner: null,
        leaseUntil: 0,
        detail: null,
      });
    }
    return true;
  }

  async settleAndLock(tx: Transaction, input: SettleInput & { scope: TenantScope }) {
    const held = await this.settle(tx, input);
    return { held, payment: held ? await this.payments.find(tx, input.scope, input.paymentId) : null };
  }

  async settleQueued(tx: Transaction, input: SettleInput) {
    if (!(await this.settle(tx, input))) throw new LeaseLostError(input.paymentId);
  }

  isLeaseLost(error: unknown) {
    return error instanceof LeaseLostError;
  }

  async claimExpired(_tx: Transaction, input: { now: Date; leaseOwner: string; leaseUntil: Date; limit: number }): Promise<InFlightRouting[]> {
    return [...this.routings.values()]
      .filter((r) => r.leaseUntil < input.now.getTime())
      .slice(0, input.limit)
      .map((r) => {
        const recoveries = r.recoveries;
        Object.assign(r, { leaseOwner: input.leaseOwner, leaseUntil: input.leaseUntil.getTime(), recoveries: recoveries + 1 });
        return { paymentId: r.paymentId, scope: r.scope, request: r.request, accountIds: r.accountIds, intents: [...r.intents], leaseOwner: r.leaseOwner, recoveries };
      });
  }

  async claimReconciliations(_tx: Transaction, input: { now: Date; leaseOwner: string; leaseUntil: Date; limit: number }): Promise<ReconciliationTask[]> {
    const now = input.now.getTime();
    return [...this.reconciliations.values()]
      .filter((c) => c.status === 'pending' && c.nextAt <= now && (c.leaseOwner === null || c.leaseUntil < now))
      .slice(0, input.limit)
      .map((c) => {
        Object.assign(c, { leaseOwner: input.leaseOwner, leaseUntil: input.leaseUntil.getTime() });
        const { attemptId, paymentId, scope, connectorAccountId, request, reversalKey, tries } = c;
        return { attemptId, paymentId, scope, connectorAccountId, request, reversalKey, tries, leaseOwner: input.leaseOwner };
      });
  }

  async finishReconciliation(_tx: Transaction, input: Parameters<PaymentRecoveryRepository['finishReconciliation']>[1]) {
    const c = this.reconciliations.get(input.attemptId);
    if (!c || c.leaseOwner !== input.leaseOwner) return false;
    Object.assign(c, { status: input.status, tries: input.tries, nextAt: input.nextAt.getTime(), detail: input.detail, leaseOwner: null, leaseUntil: 0 });
    return true;
  }

  /** Another holder takes the routing over (its lease expired and a worker claimed it). */
  takeOver(paymentId: string, leaseOwner = 'rcv_other'): void {
    this.routings.get(paymentId)!.leaseOwner = leaseOwner;
  }
}

export const GRACE_MS = 30_000;

export function recoveryDeps(payments: InMemoryPayments): PaymentRecoveryDeps & { store: InMemoryPaymentRecovery } {
  return { store: new InMemoryPaymentRecovery(payments), graceMs: GRACE_MS };
}
