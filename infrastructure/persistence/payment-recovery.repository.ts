import { Payment } from '../../domain/payment/payment';
import type {
  AttemptIntent,
  AuthorizeRequest,
  InFlightRouting,
  PaymentRecoveryRepository,
  ReconciliationTask,
  SettleInput,
} from '../../domain/ports/payment-recovery';
import type { Transaction } from '../../domain/ports/transactor';
import type { Environment } from '../../domain/shared/environment';
import { deferWrite, entityManager } from './mikro-orm-transactor';
import { paymentFromDoc } from './payment.repository';
import { sameTenant } from './tenant-guard';

const SETTLE_CTE = `with settled as (
         delete from payment_routings where payment_id = ? and lease_owner = ?
         returning payment_id, organization_id, environment, request
       ), queued as (
         insert into payment_reconciliations
           (attempt_id, payment_id, organization_id, environment, connector_account_id, request, reversal_key, status, tries, next_at, created_at, updated_at)
         select x."attemptId", s.payment_id, s.organization_id, s.environment, x."connectorAccountId", s.request, x."reversalKey", 'pending', 0, ?, ?, ?
           from settled s cross join jsonb_to_recordset(?::jsonb) as x("attemptId" text, "connectorAccountId" text, "reversalKey" text)
         on conflict (attempt_id) do nothing
       )`;

/** Raised by routing_lease_held (Migration20261125000200RoutingLeaseCheck). */
const LEASE_LOST_SQLSTATE = 'PL001';

/** SETTLE_CTE's parameters, in order. */
function settleParams(input: SettleInput): unknown[] {
  const now = input.now.toISOString();
  return [input.paymentId, input.leaseOwner, now, now, now, JSON.stringify(input.reconcile)];
}

function json<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

interface RoutingRow {
  payment_id: string;
  organization_id: string;
  environment: Environment;
  request: unknown;
  account_ids: unknown;
  intents: unknown;
  lease_owner: string;
  recoveries: number;
}

interface ReconciliationRow {
  attempt_id: string;
  payment_id: string;
  organization_id: string;
  environment: Environment;
  connector_account_id: string;
  request: unknown;
  reversal_key: string;
  tries: number;
  lease_owner: string;
}

/**
 * Tables `payment_routings` and `payment_reconciliations` (Migration20261122009800PaymentRecovery). Leases are
 * compared with the application clock's time (passed in), so tests move them with a ManualClock. Claims use
 * FOR UPDATE SKIP LOCKED: concurrent workers never get the same row, and a claimed row is not claimable again
 * until its lease expires; newest money first (created_at desc, then the larger amount): after an acquirer stall the
 * most recent double charges are the ones cardholders are about to notice. The saved Authorize request (it names the card token) is kept only while needed: the
 * routing row goes with tx2, a reconciliation's request is blanked once it reaches a final status.
 */
export class SqlPaymentRecoveryRepository implements PaymentRecoveryRepository {
  async open(
    tx: Transaction,
    input: { scope: { organizationId: string; environment: Environment }; paymentId: string; request: AuthorizeRequest; accountIds: readonly string[]; firstIntent: AttemptIntent; leaseOwner: string; leaseUntil: Date; now: Date },
  ): Promise<void> {
    // Queued: it travels with the payment's insert in tx1's single round trip.
    await deferWrite(
      tx,
      `insert into payment_routings (payment_id, organization_id, environment, request, account_ids, intents, lease_owner, lease_until, created_at, updated_at)
       values (?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?, ?, ?, ?)`,
      [
        input.paymentId,
        input.scope.organizationId,
        input.scope.environment,
        JSON.stringify(input.request),
        JSON.stringify(input.accountIds),
        JSON.stringify([input.firstIntent]),
        input.leaseOwner,
        input.leaseUntil.toISOString(),
        input.now.toISOString(),
        input.now.toISOString(),
      ],
    );
  }

  async renew(tx: Transaction, input: { paymentId: string; leaseOwner: string; leaseUntil: Date; intent?: AttemptIntent; now: Date }): Promise<boolean> {
    const rows = await entityManager(tx).execute<Array<{ payment_id: string }>>(
      `update payment_routings set lease_until = ?, intents = intents || ?::jsonb, updated_at = ?
        where payment_id = ? and lease_owner = ?
        returning payment_id`,
      [input.leaseUntil.toISOString(), JSON.stringify(input.intent ? [input.intent] : []), input.now.toISOString(), input.paymentId, input.leaseOwner],
    );
    return rows.length === 1;
  }

  async settle(
    tx: Transaction,
    input: SettleInput,
  ): Promise<boolean> {
    const rows = await entityManager(tx).execute<Array<{ n: number }>>(`${SETTLE_CTE} select count(*)::int as n from settled`, settleParams(input));
    return Number(rows[0]?.n ?? 0) === 1;
  }

  async settleQueued(
    tx: Transaction,
    input: SettleInput,
  ): Promise<void> {
    // routing_lease_held raises PL001 unless this deleted the routing row: the unit then rolls back as a whole.
    await deferWrite(tx, `${SETTLE_CTE} select routing_lease_held((select count(*) from settled))`, settleParams(input));
  }

  isLeaseLost(error: unknown): boolean {
    return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === LEASE_LOST_SQLSTATE;
  }

  async settleAndLock(
    tx: Transaction,
    input: SettleInput & { scope: { organizationId: string; environment: Environment } },
  ): Promise<{ held: boolean; payment: Payment | null }> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown; held: number }>>(
      `${SETTLE_CTE}
       select p.doc, (select count(*) from settled)::int as held
         from payments p where p.id = ? and ${sameTenant('p')}
         for update of p`,
      [...settleParams(input), input.paymentId, input.scope.organizationId, input.scope.environment],
    );
    const row = rows[0];
    if (!row) return { held: false, payment: null };
    return { held: Number(row.held) === 1, payment: Payment.fromPrimitives(paymentFromDoc(row.doc)) };
  }

  async claimExpired(tx: Transaction, input: { now: Date; leaseOwner: string; leaseUntil: Date; limit: number }): Promise<InFlightRouting[]> {
    const rows = await entityManager(tx).execute<RoutingRow[]>(
      `update payment_routings r set lease_owner = ?, lease_until = ?, recoveries = r.recoveries + 1, updated_at = ?
        where r.payment_id in (
          select payment_id from payment_routings where lease_until < ?
           order by created_at desc, (request->>'amount')::numeric desc nulls last limit ? for update skip locked
        )
        returning r.payment_id, r.organization_id, r.environment, r.request, r.account_ids, r.intents, r.lease_owner, r.recoveries`,
      [input.leaseOwner, input.leaseUntil.toISOString(), input.now.toISOString(), input.now.toISOString(), input.limit],
    );
    return rows.map((r) => ({
      paymentId: r.payment_id,
      scope: { organizationId: r.organization_id, environment: r.environment },
      request: json<AuthorizeRequest>(r.request),
      accountIds: json<string[]>(r.account_ids),
      intents: json<AttemptIntent[]>(r.intents),
      leaseOwner: r.lease_owner,
      recoveries: Number(r.recoveries) - 1,
    }));
  }

  async claimReconciliations(tx: Transaction, input: { now: Date; leaseOwner: string; leaseUntil: Date; limit: number }): Promise<ReconciliationTask[]> {
    const now = input.now.toISOString();
    const rows = await entityManager(tx).execute<ReconciliationRow[]>(
      `update payment_reconciliations c set lease_owner = ?, lease_until = ?, updated_at = ?
        where c.attempt_id in (
          select attempt_id from payment_reconciliations
           where status = 'pending' and next_at <= ? and (lease_until is null or lease_until < ?)
           order by created_at desc, (request->>'amount')::numeric desc nulls last limit ? for update skip locked
        )
        returning c.attempt_id, c.payment_id, c.organization_id, c.environment, c.connector_account_id, c.request, c.reversal_key, c.tries, c.lease_owner`,
      [input.leaseOwner, input.leaseUntil.toISOString(), now, now, now, input.limit],
    );
    return rows.map((r) => ({
      attemptId: r.attempt_id,
      paymentId: r.payment_id,
      scope: { organizationId: r.organization_id, environment: r.environment },
      connectorAccountId: r.connector_account_id,
      request: json<AuthorizeRequest>(r.request),
      reversalKey: r.reversal_key,
      tries: Number(r.tries),
      leaseOwner: r.lease_owner,
    }));
  }

  async finishReconciliation(
    tx: Transaction,
    input: { attemptId: string; leaseOwner: string; status: string; tries: number; nextAt: Date; detail: Record<string, unknown>; now: Date },
  ): Promise<boolean> {
    const rows = await entityManager(tx).execute<Array<{ attempt_id: string }>>(
      `update payment_reconciliations
          set status = ?, tries = ?, next_at = ?, detail = ?::jsonb, lease_owner = null, lease_until = null, updated_at = ?,
              request = case when ? = 'pending' then request else '{}'::jsonb end
        where attempt_id = ? and lease_owner = ?
        returning attempt_id`,
      [input.status, input.tries, input.nextAt.toISOString(), JSON.stringify(input.detail), input.now.toISOString(), input.status, input.attemptId, input.leaseOwner],
    );
    return rows.length === 1;
  }
}
