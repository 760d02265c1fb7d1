import { Payment, type PaymentPrimitives } from '../../domain/payment/payment';
import type { OperationIntent, PaymentRepository, PendingOperation } from '../../domain/ports/payment-repositories';
import type { Transaction } from '../../domain/ports/transactor';
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

function columnValues(p: PaymentPrimitives): unknown[] {
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
 * Payments as rows: the aggregate in `doc`, the searchable columns derived from it on every write.
 * Inserts and updates are queued on the unit of work (they travel with its events at commit).
 */
export class SqlPaymentRepository implements PaymentRepository {
  async insert(tx: Transaction, payment: Payment): Promise<void> {
    await deferWrite(tx, INSERT_SQL, columnValues(payment.toPrimitives()));
  }

  async update(tx: Transaction, payment: Payment): Promise<void> {
    const p = payment.toPrimitives();
    const [, organizationId, environment, ...rest] = columnValues(p);
    await deferWrite(tx, UPDATE_SQL, [
      ...rest,
      p.id,
      organizationId,
      environment,
    ]);
  }

  async find(tx: Transaction, scope: TenantScope, id: string, options: { forUpdate?: boolean } = {}): Promise<Payment | null> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from payments where id = ? and ${sameTenant()}${options.forUpdate ? ' for update' : ''}`,
      [id, scope.organizationId, scope.environment],
    );
    return rows[0] ? Payment.fromPrimitives(paymentFromDoc(rows[0].doc)) : null;
  }

  async findByAttemptId(tx: Transaction, attemptId: string, options: { forUpdate?: boolean } = {}): Promise<Payment | null> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from payments where doc->'attempts' @> ?::jsonb${options.forUpdate ? ' for update' : ''}`,
      [JSON.stringify([{ id: attemptId }])],
    );
    return rows[0] ? Payment.fromPrimitives(paymentFromDoc(rows[0].doc)) : null;
  }

  async findExpiringAuthorizations(tx: Transaction, deadlineBefore: Date, limit: number): Promise<Payment[]> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from payments
        where status = 'authorized' and captured_amount = 0
          and doc->>'authorizationExpiresAt' is not null and doc->>'expiryNoticeAt' is null
          and (doc->>'authorizationExpiresAt')::timestamptz <= ?
        order by (doc->>'authorizationExpiresAt')::timestamptz
        limit ?`,
      [deadlineBefore, limit],
    );
    return rows.map((r) => Payment.fromPrimitives(paymentFromDoc(r.doc)));
  }

  async claimOperation(tx: Transaction, scope: TenantScope, id: string, intent: OperationIntent, until: Date): Promise<boolean> {
    const rows = await entityManager(tx).execute<Array<{ id: string }>>(
      `update payments set operation_claim_id = ?, operation_claim_until = ?, operation_intent = ?::jsonb
        where id = ? and ${sameTenant()}
          and (operation_claim_id is null or operation_claim_until < now())
        returning id`,
      [intent.operationId, until, JSON.stringify(intent), id, scope.organizationId, scope.environment],
    );
    return rows.length === 1;
  }

  async findWithPendingOperation(tx: Transaction, scope: TenantScope, id: string, options: { forUpdate?: boolean } = {}): Promise<{ payment: Payment; pending: PendingOperation | null } | null> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown; intent: OperationIntent | string | null; active: boolean | null }>>(
      `select doc, operation_intent as intent, operation_claim_until >= now() as active
         from payments where id = ? and ${sameTenant()}${options.forUpdate ? ' for update' : ''}`,
      [id, scope.organizationId, scope.environment],
    );
    const row = rows[0];
    if (!row) return null;
    const intent = typeof row.intent === 'string' ? (JSON.parse(row.intent) as OperationIntent) : row.intent;
    return { payment: Payment.fromPrimitives(paymentFromDoc(row.doc)), pending: intent ? { intent, active: row.active === true } : null };
  }

  async releaseOperation(tx: Transaction, scope: TenantScope, id: string, operationId: string, settled: boolean): Promise<void> {
    await entityManager(tx).execute(
      `update payments set operation_claim_id = null, operation_claim_until = null${settled ? ', operation_intent = null' : ''}
        where id = ? and ${sameTenant()} and operation_claim_id = ?`,
      [id, scope.organizationId, scope.environment, operationId],
    );
  }
}
