import type { PaymentPrimitives } from '../../domain/payment/payment';
import type {
  ConnectorAccountFigures,
  PaymentListPage,
  PaymentListQuery,
  PaymentQueries,
  SummaryBucket,
  SummaryFigures,
  SummaryFilter,
} from '../../domain/ports/payment-repositories';
import type { Transaction } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';
import { entityManager } from './mikro-orm-transactor';
import { paymentFromDoc } from './payment.repository';

const APPROVED = `p.status in ('authorized', 'captured', 'voided')`;

/** The aggregate columns of the summary, over alias p (nullable when left-joined). */
const FIGURES = `
  count(p.id)::int8 as total,
  count(p.id) filter (where ${APPROVED})::int8 as approved,
  count(p.id) filter (where p.status = 'failed' and p.decline_reason is not null)::int8 as declined,
  count(p.id) filter (where p.status = 'failed')::int8 as failed,
  coalesce(sum(p.captured_amount), 0)::int8 as captured_volume,
  count(p.id) filter (where p.captured_amount > 0)::int8 as captured_count,
  coalesce(sum(p.refunded_amount), 0)::int8 as refunded_volume,
  count(p.id) filter (where p.refunded_amount > 0)::int8 as refund_count,
  coalesce(sum(p.amount) filter (where p.attempt_count > 1 and ${APPROVED}), 0)::int8 as recovered_volume,
  count(p.id) filter (where p.attempt_count > 1 and ${APPROVED})::int8 as recovered_count`;

interface FigureRow {
  total: number;
  approved: number;
  declined: number;
  failed: number;
  captured_volume: number;
  captured_count: number;
  refunded_volume: number;
  refund_count: number;
  recovered_volume: number;
  recovered_count: number;
}

/**
 * The one approval rate, of the summary and of each connector account: approved over what an issuer decided
 * (approved + declined), in basis points rounded down. A technical failure or timeout is no issuer's answer, so it
 * counts in neither (the summary reports it in failed, an account in technicalFailures).
 */
export function approvalRateBps(approved: number, declined: number): number {
  return approved + declined ? Math.floor((approved * 10_000) / (approved + declined)) : 0;
}

function figures(row: FigureRow | undefined): SummaryFigures {
  const n = (v: unknown) => Number(v ?? 0);
  const approved = n(row?.approved);
  const declined = n(row?.declined);
  const capturedVolume = n(row?.captured_volume);
  const capturedCount = n(row?.captured_count);
  return {
    total: n(row?.total),
    approved,
    declined,
    failed: n(row?.failed),
    approvalRateBps: approvalRateBps(approved, declined),
    capturedVolume,
    averageTicket: capturedCount ? Math.floor(capturedVolume / capturedCount) : 0,
    refundedVolume: n(row?.refunded_volume),
    refundCount: n(row?.refund_count),
    recoveredVolume: n(row?.recovered_volume),
    recoveredCount: n(row?.recovered_count),
  };
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Builds the WHERE of the list from the spec's filters (every value bound, never interpolated). */
function listFilter(scope: TenantScope, q: PaymentListQuery): { where: string; params: unknown[] } {
  const clauses = ['p.organization_id = ?', 'p.environment = ?'];
  const params: unknown[] = [scope.organizationId, scope.environment];
  const add = (clause: string, ...values: unknown[]) => {
    clauses.push(clause);
    params.push(...values);
  };
  if (q.createdBefore) add('p.created_at < ?', q.createdBefore);
  if (q.createdAfter) add('p.created_at > ?', q.createdAfter);
  if (q.hasFallback === true) add('p.attempt_count > 1');
  if (q.hasFallback === false) add('p.attempt_count <= 1');
  if (q.amountMin !== undefined) add('p.amount >= ?', q.amountMin);
  if (q.amountMax !== undefined) add('p.amount <= ?', q.amountMax);
  if (q.initiator) add('p.initiator = ?', q.initiator);
  if (q.methodTypes?.length) add('p.method_type in (select jsonb_array_elements_text(?::jsonb))', JSON.stringify(q.methodTypes));
  if (q.brands?.length) add('p.card_brand in (select jsonb_array_elements_text(?::jsonb))', JSON.stringify(q.brands.map((b) => b.toLowerCase())));
  if (q.statuses?.length) add('p.status in (select jsonb_array_elements_text(?::jsonb))', JSON.stringify(q.statuses));
  if (q.declineReason) add('p.decline_reason = ?', q.declineReason);
  if (q.connectorSlug) add(`(p.connector_slug = ? or p.doc->'attempts' @> ?::jsonb)`, q.connectorSlug, JSON.stringify([{ connectorSlug: q.connectorSlug }]));
  if (q.connectorAccountId) {
    add(`(p.connector_account_id = ? or p.doc->'attempts' @> ?::jsonb)`, q.connectorAccountId, JSON.stringify([{ connectorAccountId: q.connectorAccountId }]));
  }
  const term = q.search?.trim();
  if (term) {
    const like = `%${escapeLike(term)}%`;
    const digits = term.replace(/\D/g, '');
    const parts = [
      'p.id = ?', 'p.external_id = ?', 'p.description ilike ?', 'c.name ilike ?', 'c.email ilike ?',
      'p.nsu = ?', 'p.tid = ?', 'p.authorization_code = ?',
    ];
    const values: unknown[] = [term, term, like, like, like, term, term, term];
    if (digits && digits === term.replace(/[\s.\-/]/g, '')) {
      parts.push('c.document = ?');
      values.push(digits);
      // "card last digits": the search ends the card's last four (e.g. 1111 or 11)
      if (digits.length <= 4) {
        parts.push(`p.card_last4 like ?`);
        values.push(`%${digits}`);
      }
    }
    add(`(${parts.join(' or ')})`, ...values);
  }
  return { where: clauses.join(' and '), params };
}

export class SqlPaymentQueries implements PaymentQueries {
  async list(tx: Transaction, scope: TenantScope, query: PaymentListQuery): Promise<PaymentListPage> {
    const em = entityManager(tx);
    const { where, params } = listFilter(scope, query);
    const from = `from payments p left join customers c on c.id = p.customer_id and c.organization_id = p.organization_id and c.environment = p.environment`;
    const cursor = query.startingAfter ? ' and p.id < ?' : '';
    const rows = await em.execute<Array<{ doc: unknown }>>(
      `select p.doc ${from} where ${where}${cursor} order by p.id desc limit ?`,
      [...params, ...(query.startingAfter ? [query.startingAfter] : []), query.limit + 1],
    );
    const page: { rows: PaymentPrimitives[]; totalCount?: number } = { rows: rows.map((r) => paymentFromDoc(r.doc)) };
    if (!query.startingAfter) {
      const count = await em.execute<Array<{ n: number }>>(`select count(*)::int8 as n ${from} where ${where}`, params);
      page.totalCount = Number(count[0]?.n ?? 0);
    }
    return page;
  }

  async figures(tx: Transaction, scope: TenantScope, from: Date, to: Date, filter: SummaryFilter): Promise<SummaryFigures> {
    const rows = await entityManager(tx).execute<FigureRow[]>(
      `select ${FIGURES} from payments p
        where p.organization_id = ? and p.environment = ? and p.created_at >= ? and p.created_at < ? and p.currency = ?`,
      [scope.organizationId, scope.environment, from, to, filter.currency],
    );
    return figures(rows[0]);
  }

  async series(tx: Transaction, scope: TenantScope, from: Date, to: Date, granularity: 'hour' | 'day', filter: SummaryFilter): Promise<SummaryBucket[]> {
    const rows = await entityManager(tx).execute<Array<FigureRow & { start: Date }>>(
      `with buckets as (
         select generate_series(date_trunc('${granularity}', ?::timestamptz at time zone 'UTC'),
                                (?::timestamptz - interval '1 microsecond') at time zone 'UTC',
                                interval '1 ${granularity}') as start
       )
       select (b.start at time zone 'UTC') as start, ${FIGURES}
         from buckets b
         left join payments p on p.organization_id = ? and p.environment = ? and p.created_at >= ? and p.created_at < ?
                             and p.currency = ? and date_trunc('${granularity}', p.created_at at time zone 'UTC') = b.start
        group by b.start order by b.start`,
      [from, to, scope.organizationId, scope.environment, from, to, filter.currency],
    );
    return rows.map((r) => ({ start: new Date(r.start).toISOString(), ...figures(r) }));
  }

  async perConnectorAccount(tx: Transaction, scope: TenantScope, from: Date, to: Date, filter: SummaryFilter): Promise<ConnectorAccountFigures[]> {
    const rows = await entityManager(tx).execute<
      Array<{ account_id: string; slug: string | null; attempts: number; approved: number; declined: number; technical: number; avg_latency: number | null; captured: number }>
    >(
      `select a->>'connectorAccountId' as account_id, max(a->>'connectorSlug') as slug, count(*)::int8 as attempts,
              count(*) filter (where a->>'outcome' in ('approved', 'fraud_review'))::int8 as approved,
              count(*) filter (where a->>'outcome' = 'declined')::int8 as declined,
              count(*) filter (where a->>'outcome' in ('technical_failure', 'timeout'))::int8 as technical,
              round(avg((a->>'latencyMs')::numeric)) as avg_latency,
              coalesce(sum(p.captured_amount) filter (where a->>'outcome' in ('approved', 'fraud_review')), 0)::int8 as captured
         from payments p cross join lateral jsonb_array_elements(p.doc->'attempts') a
        where p.organization_id = ? and p.environment = ? and p.created_at >= ? and p.created_at < ? and p.currency = ?
        group by 1 order by 3 desc, 1`,
      [scope.organizationId, scope.environment, from, to, filter.currency],
    );
    return rows.map((r) => {
      const approved = Number(r.approved);
      const declined = Number(r.declined);
      return {
        connectorAccountId: r.account_id,
        connectorSlug: r.slug,
        attempts: Number(r.attempts),
        approved,
        declined,
        technicalFailures: Number(r.technical),
        approvalRateBps: approvalRateBps(approved, declined),
        capturedVolume: Number(r.captured),
        averageLatencyMs: r.avg_latency === null ? null : Number(r.avg_latency),
      };
    });
  }

  async timeline(tx: Transaction, scope: TenantScope, paymentId: string, relatedObjectIds: readonly string[] = []) {
    const objectIds = [paymentId, ...relatedObjectIds];
    const rows = await entityManager(tx).execute<Array<{ id: string; type: string; created_at: Date; data: { previousAttributes: Record<string, unknown> | null } }>>(
      // Events just committed may not be numbered yet (the relay numbers them); ids follow append order.
      `select id, type, created_at, data from events where organization_id = ? and environment = ?
          and object_id = any(array(select jsonb_array_elements_text(?::jsonb))) order by sequence nulls last, id`,
      [scope.organizationId, scope.environment, JSON.stringify(objectIds)],
    );
    return rows.map((r) => ({
      id: r.id,
      type: r.type,
      createdAt: new Date(r.created_at).toISOString(),
      previousAttributes: (typeof r.data === 'string' ? JSON.parse(r.data) : r.data)?.previousAttributes ?? null,
    }));
  }
}
