import type { Customer } from '../customer/customer';
import type { SavedPaymentMethod } from '../customer/saved-payment-method';
import type { Payment, PaymentPrimitives } from '../payment/payment';
import type { TenantScope } from '../shared/environment';
import type { Transaction } from './transactor';

/** What a merchant asked for in a capture, void or refund request body. */
export interface OperationRequest {
  /** Absent: the whole amount available. */
  readonly amount?: number;
  readonly reason?: string;
  readonly metadata?: Record<string, unknown>;
}

/**
 * A money operation as the acquirer is asked for it. Its id is the acquirer's idempotency key, so asking again
 * under the same id never executes it twice.
 */
export interface OperationIntent {
  readonly operationId: string;
  readonly kind: 'capture' | 'void' | 'refund';
  /** Minor units; null for a void. */
  readonly amount: number | null;
  /**
   * When the operation was first requested (ISO 8601). Its rules are judged as of then, however late its outcome
   * is recorded or it is resumed: a capture requested before the authorization expired is recorded after. Absent
   * on intents saved before 25 Nov 2026 (judged as of now).
   */
  readonly requestedAt?: string;
  /** The first request's body, which the settlement worker repeats (absent on intents saved before 26 Nov 2026). */
  readonly request?: OperationRequest;
  /** Idempotency-Keys of the requests that asked for it, bound to the operation once it is recorded. */
  readonly idempotencyKeys?: readonly string[];
  /** Settlement attempts by the worker so far. */
  readonly settleTries?: number;
  /** When the settlement worker may take it up (ISO 8601); absent: at once. */
  readonly settleAfter?: string;
}

/**
 * The operation last claimed on a payment whose outcome is not recorded yet: one in flight (`active`: its claim has
 * not expired), or one whose acquirer call ended without an answer or whose process stopped.
 */
export interface PendingOperation {
  readonly intent: OperationIntent;
  readonly active: boolean;
}

/** A pending operation the settlement worker may take up. */
export interface UnsettledOperation {
  readonly scope: TenantScope;
  readonly paymentId: string;
  readonly intent: OperationIntent;
}

/** When the settlement worker tries a pending operation next. */
export interface SettlementSchedule {
  readonly settleAfter: Date;
  readonly settleTries: number;
}

/**
 * What a guarded update expects of the stored payment: the status and checkout attempt count its checks relied on,
 * and its `updatedAt` as a version (status transitions move it), so a change made meanwhile is refused rather than
 * overwritten with the older copy.
 */
export interface PaymentVersion {
  readonly status: PaymentPrimitives['status'];
  readonly updatedAt: string;
  readonly checkoutAttemptsUsed: number;
}

/** Persistence of the payment aggregate. Every read is scoped by organization and environment. */
export interface PaymentRepository {
  insert(tx: Transaction, payment: Payment): Promise<void>;
  update(tx: Transaction, payment: Payment): Promise<void>;
  /**
   * `update`, queued with the unit's other writes (no round trip of its own), applied only if the stored payment is
   * still as `readAs` describes it: nothing changed it since it was read, so checks made on that copy still hold and
   * no change is overwritten. Otherwise the unit fails as a whole, nothing of it is recorded, and `isChangedMeanwhile`
   * recognizes the error.
   */
  updateIfUnchanged(tx: Transaction, payment: Payment, readAs: PaymentVersion): Promise<void>;
  /** True for the failure of a unit whose `updateIfUnchanged` found the payment changed since it was read. */
  isChangedMeanwhile(error: unknown): boolean;
  /** `forUpdate` locks the row until commit (outcomes and operations re-check the state under the lock). */
  find(tx: Transaction, scope: TenantScope, id: string, options?: { forUpdate?: boolean }): Promise<Payment | null>;
  /** Records that the payment was created under this Idempotency-Key (in the payment's first transaction). */
  bindIdempotencyKey(tx: Transaction, scope: TenantScope, key: string, paymentId: string, at: Date): Promise<void>;
  /** The payment created under this Idempotency-Key since `since`, if any. */
  findByIdempotencyKey(tx: Transaction, scope: TenantScope, key: string, since: Date): Promise<Payment | null>;
  /**
   * Marks a money operation (capture, void, refund) as in flight until `until` under `claimId` (one per claimant), so
   * two concurrent requests never both reach the acquirer, and keeps what it is (`intent`) until its outcome is
   * known. False when another claim has not expired by `now`. Times are the application clock's.
   */
  claimOperation(tx: Transaction, scope: TenantScope, id: string, claim: { claimId: string; intent: OperationIntent; until: Date; now: Date }): Promise<boolean>;
  /**
   * `find`, with the payment's pending money operation, if any, read from the same row in the same statement;
   * `now` (the application clock) says whether its claim is still active.
   */
  findWithPendingOperation(tx: Transaction, scope: TenantScope, id: string, options: { forUpdate?: boolean; now: Date }): Promise<{ payment: Payment; pending: PendingOperation | null } | null>;
  /**
   * The operation's outcome is known (recorded, or refused by the acquirer, or never sent): claim and intent go.
   * Named by its operation id once recorded (whoever holds the claim), by the claim when the claimant's call failed.
   */
  settleOperation(tx: Transaction, scope: TenantScope, id: string, which: { operationId: string } | { claimId: string }): Promise<void>;
  /**
   * Ends the claim `claimId` of an operation whose outcome is still unknown: its intent stays, for a repetition or
   * the settlement worker (not before `schedule.settleAfter`) to resume under the same id.
   */
  releaseOperation(tx: Transaction, scope: TenantScope, id: string, claimId: string, schedule: SettlementSchedule): Promise<void>;
  /** Reschedules a pending operation that is not claimed (the worker could not take it up). */
  postponeSettlement(tx: Transaction, scope: TenantScope, id: string, operationId: string, schedule: SettlementSchedule): Promise<void>;
  /** Pending operations, of any tenant, that no claim holds at `now` and whose settleAfter has come. */
  findUnsettledOperations(tx: Transaction, now: Date, limit: number): Promise<UnsettledOperation[]>;
  /**
   * The payment that made an attempt (attempt ids are globally unique), whatever its tenant: asynchronous
   * connector reports name the attempt (their idempotency key), not the tenant.
   */
  findByAttemptId(tx: Transaction, attemptId: string, options?: { forUpdate?: boolean }): Promise<Payment | null>;
  /**
   * Authorized, uncaptured payments whose capture deadline falls before `deadlineBefore` and that got no expiry
   * notice yet, oldest deadline first, whatever their tenant (a worker's scan; each is then locked by `find`).
   */
  findExpiringAuthorizations(tx: Transaction, deadlineBefore: Date, limit: number): Promise<Payment[]>;
  /**
   * Noticed pre-authorizations whose near-expiry action (capture or void) has not happened yet and whose deadline
   * is still ahead of `now`, oldest deadline first, whatever their tenant.
   */
  findUnfinishedExpiryActions(tx: Transaction, now: Date, limit: number): Promise<Payment[]>;
}

export interface PaymentListQuery {
  readonly limit: number;
  readonly startingAfter?: string;
  readonly createdBefore?: Date;
  readonly createdAfter?: Date;
  readonly hasFallback?: boolean;
  readonly search?: string;
  readonly amountMin?: number;
  readonly amountMax?: number;
  readonly initiator?: 'customer' | 'merchant';
  readonly methodTypes?: readonly string[];
  readonly brands?: readonly string[];
  readonly connectorSlug?: string;
  readonly connectorAccountId?: string;
  readonly statuses?: readonly string[];
  readonly declineReason?: string;
}

export interface PaymentListPage {
  /** Up to limit + 1 rows, newest first (the extra one only says whether more exist). */
  readonly rows: PaymentPrimitives[];
  /** Only on the first page (no startingAfter). */
  readonly totalCount?: number;
}

export interface SummaryFigures {
  readonly total: number;
  readonly approved: number;
  readonly declined: number;
  readonly failed: number;
  readonly approvalRateBps: number;
  readonly capturedVolume: number;
  readonly averageTicket: number;
  readonly refundedVolume: number;
  readonly refundCount: number;
  readonly recoveredVolume: number;
  readonly recoveredCount: number;
}

export interface SummaryBucket extends SummaryFigures {
  readonly start: string;
}

/** Which payments a summary counts besides its period: one currency, so amounts are never added across them. */
export interface SummaryFilter {
  readonly currency: string;
}

/** Performance of one connector account over the period, from the attempts it received. */
export interface ConnectorAccountFigures {
  readonly connectorAccountId: string;
  readonly connectorSlug: string | null;
  readonly attempts: number;
  readonly approved: number;
  readonly declined: number;
  readonly technicalFailures: number;
  readonly approvalRateBps: number;
  readonly capturedVolume: number;
  readonly averageLatencyMs: number | null;
}

/** Read models over payments: lists and the dashboard summary. */
export interface PaymentQueries {
  list(tx: Transaction, scope: TenantScope, query: PaymentListQuery): Promise<PaymentListPage>;
  /** approvalRateBps, here and per connector account: approved / (approved + declined); technical failures are in neither. */
  figures(tx: Transaction, scope: TenantScope, from: Date, to: Date, filter: SummaryFilter): Promise<SummaryFigures>;
  series(tx: Transaction, scope: TenantScope, from: Date, to: Date, granularity: 'hour' | 'day', filter: SummaryFilter): Promise<SummaryBucket[]>;
  perConnectorAccount(tx: Transaction, scope: TenantScope, from: Date, to: Date, filter: SummaryFilter): Promise<ConnectorAccountFigures[]>;
  /** The payment's events, and those of its related objects (its antifraud assessments), oldest first, for the full view. */
  timeline(tx: Transaction, scope: TenantScope, paymentId: string, relatedObjectIds?: readonly string[]): Promise<Array<{ id: string; type: string; createdAt: string; previousAttributes: Record<string, unknown> | null }>>;
}

export interface CustomerListQuery {
  readonly limit: number;
  readonly startingAfter?: string;
  readonly email?: string;
}

export interface CustomerRepository {
  insert(tx: Transaction, customer: Customer): Promise<void>;
  update(tx: Transaction, customer: Customer): Promise<void>;
  find(tx: Transaction, scope: TenantScope, id: string, options?: { forUpdate?: boolean }): Promise<Customer | null>;
  list(tx: Transaction, scope: TenantScope, query: CustomerListQuery): Promise<Customer[]>;
}

export interface SavedPaymentMethodRepository {
  insert(tx: Transaction, method: SavedPaymentMethod): Promise<void>;
  update(tx: Transaction, method: SavedPaymentMethod): Promise<void>;
  /** Not deleted, unless asked. */
  find(tx: Transaction, scope: TenantScope, id: string, options?: { forUpdate?: boolean }): Promise<SavedPaymentMethod | null>;
  listForCustomer(tx: Transaction, scope: TenantScope, customerId: string): Promise<SavedPaymentMethod[]>;
}

/**
 * The free production allowance (spec: 30 days or 50 production payments). Every live payment created counts,
 * declined ones too; sandbox payments and fallback attempts never do.
 */
export interface ProductionUsage {
  /**
   * Counts one live payment in its creation's first transaction. Platform billing's implementation refuses
   * (production_access_required) when neither the trial nor a paid plan allows production, which rolls that
   * transaction back. It answers nothing: reading a running total here would read the merchant's whole window of
   * payments on every payment (billing reads totals when it closes a month or shows the overview).
   */
  countLivePayment(tx: Transaction, organizationId: string, paymentId: string, at: Date): Promise<void>;
}
