/**
 * Queries behind the webhook and event-log reads (lists, statistics, summaries): the SQL side of the
 * WebhookReadModel port. Read-only SQL, always scoped by organization and environment; the write side goes through
 * the repositories and the aggregates. Rows become the port's records here, so no column name reaches the edge.
 */
import type { Orm } from './orm';
import type {
  DeliveryDetail,
  DeliveryListQuery,
  DeliveryRecord,
  EndpointStatistics,
  EventDeliveryRecord,
  EventListQuery,
  EventRecord,
  WebhookReadModel,
  WebhookSummary,
} from '../../application/webhook/webhook-read-model';
import type { Environment, TenantScope } from '../../domain/shared/environment';
import { attemptFromRow, DELIVERY_COLUMNS, type AttemptRow, type DeliveryRow } from './webhook-delivery.repository';
import { sameTenant } from './tenant-guard';

/** An event row as selected by the event-log queries. */
interface EventRow {
  id: string;
  type: string;
  api_version: string;
  created_at: Date;
  environment: Environment;
  sequence: number | string;
  data: EventRecord['data'];
}

function eventRecord(row: EventRow): EventRecord {
  return {
    id: row.id,
    type: row.type,
    apiVersion: row.api_version,
    createdAt: new Date(row.created_at),
    environment: row.environment,
    sequence: Number(row.sequence),
    data: row.data,
  };
}

function deliveryRecord(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    body: row.body,
    requestHeaders: row.request_headers ?? null,
    status: row.status,
    attempts: Number(row.attempts),
    nextRetryAt: row.next_retry_at === null ? null : new Date(row.next_retry_at),
    lastResponse: row.last_response,
    isTest: row.is_test,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** LIKE pattern of a `group.*` filter, with LIKE metacharacters escaped. */
function likePrefix(wildcard: string): string {
  return wildcard.slice(0, -1).replace(/[\\%_]/g, (c) => `\\${c}`) + '%';
}

function typeCondition(column: string, filter: string | undefined, params: unknown[]): string {
  if (!filter || filter === '*') return '';
  if (filter.endsWith('.*')) {
    params.push(likePrefix(filter));
    return ` and ${column} like ?`;
  }
  params.push(filter);
  return ` and ${column} = ?`;
}

const HOUR = 3600_000;

// The delivery columns qualified for joins, not `d.*`: a column a migration adds must not change a prepared statement's result type.
const JOINED_DELIVERY_COLUMNS = DELIVERY_COLUMNS.split(',').map((column) => `d.${column.trim()}`).join(', ');

export class SqlWebhookReadModel implements WebhookReadModel {
  constructor(private readonly orm: Orm) {}

  private em() {
    return this.orm.em.fork({ useContext: false });
  }

  async endpointStatistics(endpointIds: readonly string[], now: Date): Promise<Map<string, EndpointStatistics>> {
    const result = new Map<string, EndpointStatistics>();
    if (endpointIds.length === 0) return result;
    const since = new Date(Math.floor(now.getTime() / HOUR) * HOUR - 23 * HOUR);
    const ids = JSON.stringify(endpointIds);
    const em = this.em();
    const [totals, hourly, last] = await Promise.all([
      em.execute<Array<{ endpoint_id: string; attempts: number; succeeded: number; avg_ms: number | null; p95_ms: number | null }>>(
        `select endpoint_id, count(*)::int4 as attempts, count(*) filter (where succeeded)::int4 as succeeded,
                avg(duration_ms)::float8 as avg_ms, percentile_cont(0.95) within group (order by duration_ms)::float8 as p95_ms
           from webhook_delivery_attempts
          where endpoint_id in (select jsonb_array_elements_text(?::jsonb)) and started_at >= ? and not is_test
          group by endpoint_id`,
        [ids, new Date(now.getTime() - 24 * HOUR)],
      ),
      em.execute<Array<{ endpoint_id: string; hour: Date; attempts: number; succeeded: number }>>(
        `select endpoint_id, date_trunc('hour', started_at) as hour, count(*)::int4 as attempts, count(*) filter (where succeeded)::int4 as succeeded
           from webhook_delivery_attempts
          where endpoint_id in (select jsonb_array_elements_text(?::jsonb)) and started_at >= ? and not is_test
          group by endpoint_id, date_trunc('hour', started_at)`,
        [ids, since],
      ),
      em.execute<Array<{ endpoint_id: string; delivery_id: string; event_id: string; event_type: string; started_at: Date; response_status: number | null; succeeded: boolean; duration_ms: number }>>(
        `select distinct on (a.endpoint_id) a.endpoint_id, a.delivery_id, d.event_id, d.event_type, a.started_at, a.response_status, a.succeeded, a.duration_ms
           from webhook_delivery_attempts a join webhook_deliveries d on d.id = a.delivery_id
          where a.endpoint_id in (select jsonb_array_elements_text(?::jsonb))
          order by a.endpoint_id, a.started_at desc`,
        [ids],
      ),
    ]);
    for (const id of endpointIds) {
      const t = totals.find((row) => row.endpoint_id === id);
      const l = last.find((row) => row.endpoint_id === id);
      const buckets = Array.from({ length: 24 }, (_, i) => {
        const hour = new Date(since.getTime() + i * HOUR);
        const row = hourly.find((h) => h.endpoint_id === id && new Date(h.hour).getTime() === hour.getTime());
        return { hour: hour.toISOString(), attempts: row ? Number(row.attempts) : 0, succeeded: row ? Number(row.succeeded) : 0 };
      });
      const attempts = t ? Number(t.attempts) : 0;
      const succeeded = t ? Number(t.succeeded) : 0;
      result.set(id, {
        windowHours: 24,
        attempts,
        succeeded,
        failed: attempts - succeeded,
        successRate: attempts === 0 ? null : Math.round((succeeded / attempts) * 10000) / 10000,
        averageResponseMs: t?.avg_ms == null ? null : Math.round(Number(t.avg_ms)),
        p95ResponseMs: t?.p95_ms == null ? null : Math.round(Number(t.p95_ms)),
        deliveriesPerHour: buckets,
        lastDelivery: l
          ? {
              deliveryId: l.delivery_id,
              eventId: l.event_id,
              eventType: l.event_type,
              attemptedAt: new Date(l.started_at).toISOString(),
              responseStatus: l.response_status === null ? null : Number(l.response_status),
              succeeded: l.succeeded,
              durationMs: Number(l.duration_ms),
            }
          : null,
      });
    }
    return result;
  }

  async summary(scope: TenantScope, now: Date): Promise<WebhookSummary> {
    const em = this.em();
    const [statuses] = await Promise.all([
      em.execute<Array<{ status: string; n: number }>>(
        `select status, count(*)::int4 as n from webhook_endpoints where organization_id = ? and environment = ? and deleted_at is null group by status`,
        [scope.organizationId, scope.environment],
      ),
    ]);
    const windows = await em.execute<Array<{ w: string; total: number; succeeded: number; failed: number; exhausted: number }>>(
      `select case when created_at >= ? then 'current' else 'previous' end as w, count(*)::int4 as total,
              count(*) filter (where status = 'succeeded')::int4 as succeeded,
              count(*) filter (where status = 'failed')::int4 as failed,
              count(*) filter (where status = 'exhausted')::int4 as exhausted
         from webhook_deliveries
        where organization_id = ? and environment = ? and not is_test and created_at >= ? and created_at < ?
        group by 1`,
      [new Date(now.getTime() - 24 * HOUR), scope.organizationId, scope.environment, new Date(now.getTime() - 48 * HOUR), now],
    );
    const count = (s: string) => Number(statuses.find((row) => row.status === s)?.n ?? 0);
    const window = (w: string) => {
      const row = windows.find((r) => r.w === w);
      const total = row ? Number(row.total) : 0;
      const succeeded = row ? Number(row.succeeded) : 0;
      return {
        deliveries: total,
        succeeded,
        failed: row ? Number(row.failed) : 0,
        exhausted: row ? Number(row.exhausted) : 0,
        successRate: total === 0 ? null : Math.round((succeeded / total) * 10000) / 10000,
      };
    };
    const current = window('current');
    const previous = window('previous');
    return {
      endpoints: {
        total: count('active') + count('failing') + count('disabled') + count('auto_disabled'),
        active: count('active'),
        failing: count('failing'),
        switchedOff: count('disabled') + count('auto_disabled'),
        disabled: count('disabled'),
        autoDisabled: count('auto_disabled'),
      },
      last24Hours: current,
      previous24Hours: previous,
      change: {
        deliveries: current.deliveries - previous.deliveries,
        successRate: current.successRate === null || previous.successRate === null ? null : Math.round((current.successRate - previous.successRate) * 10000) / 10000,
      },
    };
  }

  async listDeliveries(scope: TenantScope, endpointId: string, q: DeliveryListQuery): Promise<DeliveryRecord[]> {
    const params: unknown[] = [scope.organizationId, scope.environment, endpointId];
    let sql = `select ${DELIVERY_COLUMNS} from webhook_deliveries where organization_id = ? and environment = ? and endpoint_id = ?`;
    if (q.statuses && q.statuses.length > 0) {
      sql += ` and status in (select jsonb_array_elements_text(?::jsonb))`;
      params.push(JSON.stringify(q.statuses));
    }
    sql += typeCondition('event_type', q.eventType, params);
    if (q.createdFrom) {
      sql += ` and created_at >= ?`;
      params.push(q.createdFrom);
    }
    if (q.createdTo) {
      sql += ` and created_at <= ?`;
      params.push(q.createdTo);
    }
    if (q.search) {
      sql += ` and (id = ? or event_id = ?)`;
      params.push(q.search, q.search);
    }
    if (q.startingAfter) {
      sql += ` and id < ?`;
      params.push(q.startingAfter);
    }
    sql += ` order by id desc limit ?`;
    params.push(q.limit + 1);
    const rows = await this.em().execute<DeliveryRow[]>(sql, params);
    return rows.map(deliveryRecord);
  }

  async delivery(scope: TenantScope, endpointId: string, id: string): Promise<DeliveryDetail | null> {
    const em = this.em();
    const rows = await em.execute<Array<DeliveryRow & { url: string | null }>>(
      `select ${JOINED_DELIVERY_COLUMNS}, e.url from webhook_deliveries d left join webhook_endpoints e on e.id = d.endpoint_id
        where d.id = ? and d.endpoint_id = ? and d.organization_id = ? and d.environment = ?`,
      [id, endpointId, scope.organizationId, scope.environment],
    );
    if (!rows[0]) return null;
    const attempts = await em.execute<AttemptRow[]>(
      `select delivery_id, seq, number, started_at, duration_ms, response_status, succeeded, error from webhook_delivery_attempts
        where delivery_id = ? order by seq`,
      [id],
    );
    return { delivery: deliveryRecord(rows[0]), attempts: attempts.map(attemptFromRow), url: rows[0].url };
  }

  async listEvents(scope: TenantScope, q: EventListQuery): Promise<EventRecord[] | null> {
    const params: unknown[] = [scope.organizationId, scope.environment];
    // Events appear once the relay has numbered them (milliseconds after commit).
    let sql = `select id, type, api_version, created_at, environment, sequence, data from events where organization_id = ? and environment = ? and sequence is not null`;
    sql += typeCondition('type', q.type, params);
    if (q.objectType) {
      sql += ` and object_type = ?`;
      params.push(q.objectType);
    }
    if (q.objectId) {
      sql += ` and object_id = ?`;
      params.push(q.objectId);
    }
    if (q.createdFrom) {
      sql += ` and created_at >= ?`;
      params.push(q.createdFrom);
    }
    if (q.createdTo) {
      sql += ` and created_at <= ?`;
      params.push(q.createdTo);
    }
    if (q.search) {
      sql += ` and (id = ? or object_id = ?)`;
      params.push(q.search, q.search);
    }
    const em = this.em();
    if (q.startingAfter) {
      const cursor = await em.execute<Array<{ sequence: number }>>(
        `select sequence from events where id = ? and ${sameTenant()} and sequence is not null`,
        [q.startingAfter, scope.organizationId, scope.environment],
      );
      if (!cursor[0]) return null;
      sql += ` and sequence < ?`;
      params.push(cursor[0].sequence);
    }
    sql += ` order by sequence desc limit ?`;
    params.push(q.limit + 1);
    const rows = await em.execute<EventRow[]>(sql, params);
    return rows.map(eventRecord);
  }

  async event(scope: TenantScope, id: string): Promise<EventRecord | null> {
    const rows = await this.em().execute<EventRow[]>(
      `select id, type, api_version, created_at, environment, sequence, data from events
        where id = ? and ${sameTenant()} and sequence is not null`,
      [id, scope.organizationId, scope.environment],
    );
    return rows[0] ? eventRecord(rows[0]) : null;
  }

  /** Delivery status counts per event, for the event log's summary (scope webhooks:read). */
  async deliverySummaries(scope: TenantScope, eventIds: readonly string[]): Promise<Map<string, Record<string, number>>> {
    const map = new Map<string, Record<string, number>>();
    if (eventIds.length === 0) return map;
    const rows = await this.em().execute<Array<{ event_id: string; status: string; n: number }>>(
      `select event_id, status, count(*)::int4 as n from webhook_deliveries
        where organization_id = ? and environment = ? and event_id in (select jsonb_array_elements_text(?::jsonb))
        group by event_id, status`,
      [scope.organizationId, scope.environment, JSON.stringify(eventIds)],
    );
    for (const id of eventIds) map.set(id, { total: 0, pending: 0, succeeded: 0, failed: 0, exhausted: 0, disabled: 0 });
    for (const row of rows) {
      const entry = map.get(row.event_id)!;
      entry[row.status] = Number(row.n);
      entry.total += Number(row.n);
    }
    return map;
  }

  async eventDeliveries(scope: TenantScope, eventId: string): Promise<EventDeliveryRecord[]> {
    const rows = await this.em().execute<Array<DeliveryRow & { url: string; deleted_at: Date | null }>>(
      `select ${JOINED_DELIVERY_COLUMNS}, e.url, e.deleted_at from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
        where d.organization_id = ? and d.environment = ? and d.event_id = ? order by d.id`,
      [scope.organizationId, scope.environment, eventId],
    );
    return rows.map((row) => ({ ...deliveryRecord(row), endpointUrl: row.url, endpointDeleted: row.deleted_at !== null }));
  }
}
