import type { Payment } from '../payment/payment';
import type { AuthorizeInput } from './acquirer-gateway';
import type { TenantScope } from '../shared/environment';
import type { Transaction } from './transactor';

/** What a Pix charge or a boleto is issued with (the body's pix / boleto options, defaults applied). */
export type BankChargeOptions =
  | { readonly methodType: 'pix'; readonly expiresInSeconds: number }
  | {
      readonly methodType: 'boleto';
      /** YYYY-MM-DD. */
      readonly dueDate: string;
      readonly daysAfterDue: number;
      readonly instructions?: string;
      readonly fineBps: number;
      readonly interestMonthlyBps: number;
    };

/**
 * Authorize as sent for a payment, minus the per-attempt parts (credentials and idempotency key). A Pix or boleto
 * payment has no card (no source) and carries its charge's options instead: the executor issues the charge.
 */
// threeDs is left out: a 3DS authentication (CAVV, XID) goes to the acquirer in memory and is never saved with a request.
export type AuthorizeRequest = Omit<AuthorizeInput, 'credentials' | 'idempotencyKey' | 'source' | 'threeDs'> & {
  readonly source?: AuthorizeInput['source'];
  readonly bankCharge?: BankChargeOptions;
};

/** An attempt about to be sent: written before the connector call, so a crash leaves its idempotency key behind. */
export interface AttemptIntent {
  readonly attemptId: string;
  readonly connectorAccountId: string;
  readonly startedAt: string;
}

/** A payment whose routing is in flight, as a recovery worker claims it. */
export interface InFlightRouting {
  readonly paymentId: string;
  readonly scope: TenantScope;
  readonly request: AuthorizeRequest;
  /** The ranked accounts routing had chosen, in order. */
  readonly accountIds: readonly string[];
  /** Attempts already sent (or about to be), in order. */
  readonly intents: readonly AttemptIntent[];
  readonly leaseOwner: string;
  /** How many times a recovery claimed it before (0 on the first recovery). */
  readonly recoveries: number;
}

/** An attempt whose outcome stayed unknown (timeout), to be resolved by re-sending Authorize with its id. */
export interface ReconciliationTask {
  readonly attemptId: string;
  readonly paymentId: string;
  readonly scope: TenantScope;
  readonly connectorAccountId: string;
  readonly request: AuthorizeRequest;
  /** Idempotency key of the void/refund that reverses an authorization found (fixed once, reused on retries). */
  readonly reversalKey: string;
  readonly tries: number;
  readonly leaseOwner: string;
}

/** What ending a routing needs: its holder, and the attempts whose outcome stayed unknown (to reconcile). */
export interface SettleInput {
  readonly paymentId: string;
  readonly leaseOwner: string;
  readonly reconcile: ReadonlyArray<{ attemptId: string; connectorAccountId: string; reversalKey: string }>;
  readonly now: Date;
}

/**
 * Durable routing state of card authorizations (crash recovery) and the queue of unknown outcomes to reconcile.
 * Times are the application clock's, passed in.
 */
export interface PaymentRecoveryRepository {
  /** tx1: the payment's routing with its first intent, leased to the creating request until `leaseUntil`. */
  open(tx: Transaction, input: { scope: TenantScope; paymentId: string; request: AuthorizeRequest; accountIds: readonly string[]; firstIntent: AttemptIntent; leaseOwner: string; leaseUntil: Date; now: Date }): Promise<void>;
  /**
   * Appends an intent (fallback) and/or extends the lease, only while `leaseOwner` still holds it. False: the lease
   * was taken over (the caller must stop calling connectors for this payment).
   */
  renew(tx: Transaction, input: { paymentId: string; leaseOwner: string; leaseUntil: Date; intent?: AttemptIntent; now: Date }): Promise<boolean>;
  /**
   * tx2: ends the routing if `leaseOwner` still holds it and queues the reconciliations of unknown outcomes, in one
   * statement. False: another holder took the payment over; the caller must not record an outcome.
   */
  settle(tx: Transaction, input: SettleInput): Promise<boolean>;
  /**
   * `settle` and the payment locked (FOR UPDATE) and read, in ONE statement: tx2 pays no extra round trip for the
   * lease check. `held` false: record nothing.
   */
  settleAndLock(
    tx: Transaction,
    input: SettleInput & { scope: TenantScope },
  ): Promise<{ held: boolean; payment: Payment | null }>;
  /**
   * `settle` queued with the unit's other writes (no round trip of its own), for a holder that records its outcome
   * without reading the payment again. When the lease is no longer held the unit fails as a whole, nothing of it
   * is recorded, and `isLeaseLost` recognizes the error.
   */
  settleQueued(tx: Transaction, input: SettleInput): Promise<void>;
  /** True for the failure of a unit whose `settleQueued` found the lease taken over. */
  isLeaseLost(error: unknown): boolean;
  /** Routings whose lease expired before `now` (SKIP LOCKED), leased to `leaseOwner` until `leaseUntil`. */
  claimExpired(tx: Transaction, input: { now: Date; leaseOwner: string; leaseUntil: Date; limit: number }): Promise<InFlightRouting[]>;
  /** Due pending reconciliations not leased by another worker (SKIP LOCKED), leased to `leaseOwner`. */
  claimReconciliations(tx: Transaction, input: { now: Date; leaseOwner: string; leaseUntil: Date; limit: number }): Promise<ReconciliationTask[]>;
  /** Records the reconciliation's result (final status, or pending again at `nextAt`) if `leaseOwner` still holds it. */
  finishReconciliation(tx: Transaction, input: { attemptId: string; leaseOwner: string; status: string; tries: number; nextAt: Date; detail: Record<string, unknown>; now: Date }): Promise<boolean>;
}
