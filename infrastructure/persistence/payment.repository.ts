import { Payment, type PaymentPrimitives } from '../../domain/payment/payment';
import type { OperationIntent, PaymentRepository, PaymentVersion, PendingOperation, SettlementSchedule, UnsettledOperation } from '../../domain/ports/payment-repositories';
import type { Transaction } from '../../domain/ports/transactor';
import type { DeepReadonly } from '../../domain/shared/deep-readonly';
import type { TenantScope } from '../../domain/shared/environment';
import { deferWrite, entityManager } from './mikro-orm-transactor';
import { sameTenant } from './tenant-guard';

const COLUMNS = `id, organization_id, environment, status, amount, currency, method_type, capture_method, captured_amount,
  refunded_amount, initiator, card_brand, card_last4, nsu, tid, authorization_code, customer_id, connector_account_id,
  connector_slug, decline_reason, attempt_count, external_id, description, doc, created_at, updated_at`;

const COLUMN_NAMES = COLUMNS.split(',').map((name) => name.trim());
const placeholder = (name: string) => (name === 'doc' ? '?::jsonb' : '?');
const INSERT_SQL = `insert into payments (${COLUMNS}) values (${COLUMN_NAMES.map(placeholder).join(', ')})`;
/** Every column but the key (id, organization_id, environment), which the where clause names. */
const UPDATE_SQL = `update payments set ${COLUMN_NAMES.slice(3).map((name) => `${name} = ${placeholder(name)}`).join(', ')}
  where id = ? and ${sameTenant()}`;
/**
 * UPDATE_SQL applied only to the row as it was read (the where clause sees the stored row, before the update), then
 * payment_unchanged (Migration20261202000100PaymentWriteGuard) raises PAYMENT_CHANGED_SQLSTATE unless it changed
 * exactly that row: the unit rolls back as a whole.
 */
const GUARDED_UPDATE_SQL = `with changed as (
    ${UPDATE_SQL}
      and status = ? and updated_at = ?::timestamptz and coalesce((doc->'checkout'->>'attemptsUsed')::int, 0) = ?
    returning 1
  )
  select payment_unchanged((select count(*) from changed))`;

/** Raised by payment_unchanged (Migration20261202000100PaymentWriteGuard). */
const PAYMENT_CHANGED_SQLSTATE = 'PL002';

function columnValues(p: DeepReadonly<PaymentPrimitives>): unknown[] {
  return [
    p.id, p.organizationId, p.environment, p.status, p.amount, p.currency, p.methodType, p.captureMethod, p.capturedAmount,
    p.refundedAmount, p.initiator, p.card?.brand?.toLowerCase() ?? null, p.card?.last4 ?? null, p.acquirer.nsu, p.acquirer.tid,
    p.acquirer.authorizationCode, p.customerId, p.connectorAccountId, p.connectorSlug, p.decline?.reason ?? null, p.attempts.length,
    p.externalId, p.description, JSON.stringify(p), p.createdAt, p.updatedAt,
  ];
}

export function paymentFromDoc(doc: unknown): PaymentPrimitives {
  return (typeof doc === 'string' ? JSON.parse(doc) : doc) as PaymentPrimitives;
}

/**
 * The authorization-expiry job's scans (application/payments/notify-expiring-authorizations.ts): uncaptured
 * pre-authorizations whose notice is due (parameters: deadline, limit), and those noticed whose near-expiry capture or
 * void is not done yet (now, limit). Both read the partial index payments_uncaptured_authorizations
 * (Migration20261204000100UncapturedAuthorizations), not the whole table.
 */
export const EXPIRING_AUTHORIZATIONS_SQL = `select doc from payments
  where status = 'authorized' and captured_amount = 0
    and doc->>'authorizationExpiresAt' is not null and doc->>'expiryNoticeAt' is null
    and (doc->>'authorizationExpiresAt')::timestamptz <= ?
  order by (doc->>'authorizationExpiresAt')::timestamptz
  limit ?`;
export const UNFINISHED_EXPIRY_ACTIONS_SQL = `select doc from payments
  where status = 'authorized' and captured_amount = 0
    and doc->>'expiryNoticeAt' is not null and doc->>'expiryAction' in ('capture', 'void')
    and doc->>'expiryActionRefusal' is null
    and (doc->>'authorizationExpiresAt')::timestamptz > ?
  order by (doc->>'authorizationExpiresAt')::timestamptz
  limit ?`;

/**
 * Payments as rows: the aggregate in `doc`, the searchable columns derived from it on every write.
 * Inserts and updates are queued on the unit of work (they travel with its events at commit).
 */
export class SqlPaymentRepository implements PaymentRepository {
  async insert(tx: Transaction, payment: Payment): Promise<void> {
    await deferWrite(tx, INSERT_SQL, columnValues(payment.view()));
  }

  async update(tx: Transaction, payment: Payment): Promise<void> {
    const p = payment.view();
    const [, organizationId, environment, ...rest] = columnValues(p);
    await deferWrite(tx, UPDATE_SQL, [
      ...rest,
      p.id,
      organizationId,
      environment,
    ]);
  }

  async updateIfUnchanged(tx: Transaction, payment: Payment, readAs: PaymentVersion): Promise<void> {
    const p = payment.view();
    const [, organizationId, environment, ...rest] = columnValues(p);
    await deferWrite(tx, GUARDED_UPDATE_SQL, [...rest, p.id, organizationId, environment, readAs.status, readAs.updatedAt, readAs.checkoutAttemptsUsed]);
  }

  isChangedMeanwhile(error: unknown): boolean {
    return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === PAYMENT_CHANGED_SQLSTATE;
  }

  async find(tx: Transaction, scope: TenantScope, id: string, options: { forUpdate?: boolean } = {}): Promise<Payment | null> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from payments where id = ? and ${sameTenant()}${options.forUpdate ? ' for update' : ''}`,
      [id, scope.organizationId, scope.environment],
    );
    return rows[0] ? Payment.fromPrimitives(paymentFromDoc(rows[0].doc)) : null;
  }

  async bindIdempotencyKey(tx: Transaction, scope: TenantScope, key: string, paymentId: string, at: Date): Promise<void> {
    // A key older than its 24 hours may name a new payment: the edge treats it as a new request by then.
    await entityManager(tx).execute(
      `insert into payment_idempotency_keys (organization_id, environment, key, payment_id, created_at) values (?, ?, ?, ?, ?)
       on conflict (organization_id, environment, key) do update set payment_id = excluded.payment_id, created_at = excluded.created_at`,
      [scope.organizationId, scope.environment, key, paymentId, at],
    );
  }

  async findByIdempotencyKey(tx: Transaction, scope: TenantScope, key: string, since: Date): Promise<Payment | null> {
    const rows = await entityManager(tx).execute<Array<{ payment_id: string }>>(
      `select payment_id from payment_idempotency_keys where organization_id = ? and environment = ? and key = ? and created_at >= ?`,
      [scope.organizationId, scope.environment, key, since],
    );
    return rows[0] ? this.find(tx, scope, rows[0].payment_id) : null;
  }

  async findByAttemptId(tx: Transaction, attemptId: string, options: { forUpdate?: boolean } = {}): Promise<Payment | null> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from payments where doc->'attempts' @> ?::jsonb${options.forUpdate ? ' for update' : ''}`,
      [JSON.stringify([{ id: attemptId }])],
    );
    return rows[0] ? Payment.fromPrimitives(paymentFromDoc(rows[0].doc)) : null;
  }

  async findExpiringAuthorizations(tx: Transaction, deadlineBefore: Date, limit: number): Promise<Payment[]> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(EXPIRING_AUTHORIZATIONS_SQL, [deadlineBefore, limit]);
    return rows.map((r) => Payment.fromPrimitives(paymentFromDoc(r.doc)));
  }

  async findUnfinishedExpiryActions(tx: Transaction, now: Date, limit: number): Promise<Payment[]> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(UNFINISHED_EXPIRY_ACTIONS_SQL, [now, limit]);
    return rows.map((r) => Payment.fromPrimitives(paymentFromDoc(r.doc)));
  }

  async claimOperation(tx: Transaction, scope: TenantScope, id: string, claim: { claimId: string; intent: OperationIntent; until: Date; now: Date }): Promise<boolean> {
    const rows = await entityManager(tx).execute<Array<{ id: string }>>(
      `update payments set operation_claim_id = ?, operation_claim_until = ?, operation_intent = ?::jsonb
        where id = ? and ${sameTenant()}
          and (operation_claim_id is null or operation_claim_until < ?)
        returning id`,
      [claim.claimId, claim.until, JSON.stringify(claim.intent), id, scope.organizationId, scope.environment, claim.now],
    );
    return rows.length === 1;
  }

  async findWithPendingOperation(tx: Transaction, scope: TenantScope, id: string, options: { forUpdate?: boolean; now: Date }): Promise<{ payment: Payment; pending: PendingOperation | null } | null> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown; intent: OperationIntent | string | null; active: boolean | null }>>(
      `select doc, operation_intent as intent, operation_claim_until >= ? as active
         from payments where id = ? and ${sameTenant()}${options.forUpdate ? ' for update' : ''}`,
      [options.now, id, scope.organizationId, scope.environment],
    );
    const row = rows[0];
    if (!row) return null;
    const intent = parseIntent(row.intent);
    return { payment: Payment.fromPrimitives(paymentFromDoc(row.doc)), pending: intent ? { intent, active: row.active === true } : null };
  }

  async settleOperation(tx: Transaction, scope: TenantScope, id: string, which: { operationId: string } | { claimId: string }): Promise<void> {
    const [condition, value] = 'operationId' in which ? [`operation_intent->>'operationId' = ?`, which.operationId] : ['operation_claim_id = ?', which.claimId];
    await entityManager(tx).execute(
      `update payments set operation_claim_id = null, operation_claim_until = null, operation_intent = null
        where id = ? and ${sameTenant()} and ${condition}`,
      [id, scope.organizationId, scope.environment, value],
    );
  }

  async releaseOperation(tx: Transaction, scope: TenantScope, id: string, claimId: string, schedule: SettlementSchedule): Promise<void> {
    await entityManager(tx).execute(
      `update payments set operation_claim_id = null, operation_claim_until = null,
              operation_intent = operation_intent || jsonb_build_object('settleAfter', ?::text, 'settleTries', ?::int)
        where id = ? and ${sameTenant()} and operation_claim_id = ?`,
      [schedule.settleAfter.toISOString(), schedule.settleTries, id, scope.organizationId, scope.environment, claimId],
    );
  }

  async postponeSettlement(tx: Transaction, scope: TenantScope, id: string, operationId: string, schedule: SettlementSchedule): Promise<void> {
    await entityManager(tx).execute(
      `update payments set operation_intent = operation_intent || jsonb_build_object('settleAfter', ?::text, 'settleTries', ?::int)
        where id = ? and ${sameTenant()} and operation_intent->>'operationId' = ?`,
      [schedule.settleAfter.toISOString(), schedule.settleTries, id, scope.organizationId, scope.environment, operationId],
    );
  }

  async findUnsettledOperations(tx: Transaction, now: Date, limit: number): Promise<UnsettledOperation[]> {
    // settleAfter and requestedAt are always written as ISO 8601 UTC, so their text order is their time order; the
    // index payments_pending_operation finds the due rows. Newest money first: the most recently requested operation
    // (intents saved before requestedAt existed come last), then the larger amount.
    const rows = await entityManager(tx).execute<Array<{ id: string; organization_id: string; environment: string; intent: OperationIntent | string }>>(
      `select id, organization_id, environment, operation_intent as intent from payments
        where operation_intent is not null
          and coalesce(operation_intent->>'settleAfter', '') <= ?
          and (operation_claim_id is null or operation_claim_until < ?)
        order by coalesce(operation_intent->>'requestedAt', '') desc, (operation_intent->>'amount')::numeric desc nulls last
        limit ?`,
      [now.toISOString(), now, limit],
    );
    return rows.map((row) => ({
      scope: { organizationId: row.organization_id, environment: row.environment as TenantScope['environment'] },
      paymentId: row.id,
      intent: parseIntent(row.intent)!,
    }));
  }
}

function parseIntent(value: OperationIntent | string | null): OperationIntent | null {
  return typeof value === 'string' ? (JSON.parse(value) as OperationIntent) : value;
}
