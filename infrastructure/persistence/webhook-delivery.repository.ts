import type { Transaction } from '../../domain/ports/transactor';
import type { DeliveryOutcomeWrite, NewAttemptRecord, WebhookDeliveryRepository } from '../../domain/ports/webhook-repositories';
import type { Environment, TenantScope } from '../../domain/shared/environment';
import { WebhookDelivery, type DeliveryAttempt, type StoredResponse } from '../../domain/webhook/webhook-delivery';
import type { DeliveryStatus } from '../../domain/webhook/webhook-delivery.transitions';
import { deferWrite, entityManager } from './mikro-orm-transactor';

export interface DeliveryRow {
  id: string;
  organization_id: string;
  environment: Environment;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  body: string;
  request_headers: Record<string, string> | null;
  status: DeliveryStatus;
  attempts: number;
  next_retry_at: Date | null;
  last_response: StoredResponse | null;
  is_test: boolean;
  lease_owner: string | null;
  lease_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface AttemptRow {
  delivery_id: string;
  seq: number;
  number: number;
  started_at: Date;
  duration_ms: number;
  response_status: number | null;
  succeeded: boolean;
  error: string | null;
}

export const DELIVERY_COLUMNS = `id, organization_id, environment, endpoint_id, event_id, event_type, body, request_headers, status, attempts,
  next_retry_at, last_response, is_test, lease_owner, lease_until, created_at, updated_at`;

export function attemptFromRow(row: AttemptRow): DeliveryAttempt {
  return {
    number: Number(row.number),
    startedAt: new Date(row.started_at),
    durationMs: Number(row.duration_ms),
    responseStatus: row.response_status === null ? null : Number(row.response_status),
    succeeded: row.succeeded,
    error: row.error,
  };
}

export function deliveryFromRow(row: DeliveryRow, attempts: AttemptRow[] = []): WebhookDelivery {
  return WebhookDelivery.restore({
    id: row.id,
    organizationId: row.organization_id,
    environment: row.environment,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    body: row.body,
    status: row.status,
    attempts: Number(row.attempts),
    nextRetryAt: row.next_retry_at === null ? null : new Date(row.next_retry_at),
    lastResponse: row.last_response,
    attemptLog: attempts.map(attemptFromRow),
    isTest: row.is_test,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  });
}

export class SqlWebhookDeliveryRepository implements WebhookDeliveryRepository {
  async insertManyIfAbsent(tx: Transaction, rows: ReadonlyArray<{ delivery: WebhookDelivery; lease?: { owner: string; until: Date } }>): Promise<string[]> {
    if (rows.length === 0) return [];
    // Rows travel as one JSON parameter (arrays cannot be bound): one statement whatever the endpoint count. The body
    // (the event's envelope, the same for every endpoint of an event) travels once per distinct value, not once per
    // row: escaping and parsing ten copies of it was the fan-out's largest cost per event.
    const bodies: string[] = [];
    const bodyIndex = new Map<string, number>();
    const values = rows.map(({ delivery: { state: s }, lease }) => {
      let index = bodyIndex.get(s.body);
      if (index === undefined) {
        index = bodies.push(s.body) - 1;
        bodyIndex.set(s.body, index);
      }
      return {
        id: s.id, organization_id: s.organizationId, environment: s.environment, endpoint_id: s.endpointId, event_id: s.eventId,
        event_type: s.eventType, body_index: index, status: s.status, attempts: s.attempts, next_retry_at: s.nextRetryAt, is_test: s.isTest,
        lease_owner: lease?.owner ?? null, lease_until: lease?.until ?? null, created_at: s.createdAt, updated_at: s.updatedAt,
      };
    });
    const inserted = await entityManager(tx).execute<Array<{ id: string }>>(
      `insert into webhook_deliveries (id, organization_id, environment, endpoint_id, event_id, event_type, body, status, attempts,
         next_retry_at, is_test, lease_owner, lease_until, created_at, updated_at)
       select id, organization_id, environment, endpoint_id, event_id, event_type, ?::jsonb ->> body_index, status, attempts, next_retry_at,
              is_test, lease_owner, lease_until, created_at, updated_at
         from jsonb_to_recordset(?::jsonb) as v(id text, organization_id text, environment text, endpoint_id text, event_id text, event_type text,
           body_index int4, status text, attempts int4, next_retry_at timestamptz, is_test boolean, lease_owner text, lease_until timestamptz,
           created_at timestamptz, updated_at timestamptz)
       on conflict (event_id, endpoint_id) do nothing returning id`,
      [JSON.stringify(bodies), JSON.stringify(values)],
    );
    return inserted.map((row) => row.id);
  }

  async recordOutcomes(tx: Transaction, writes: readonly DeliveryOutcomeWrite[], attempts: readonly NewAttemptRecord[]): Promise<void> {
    if (writes.length > 0) {
      const rows = writes.map((w) => {
        const s = w.delivery.state;
        return {
          id: s.id, move: w.moveState, expected_attempts: w.expectedAttempts ?? null, status: s.status, attempts: s.attempts, next_retry_at: s.nextRetryAt,
          last_response: s.lastResponse, updated_at: s.updatedAt, set_headers: w.requestHeaders !== undefined, request_headers: w.requestHeaders ?? null,
          lease_owner: w.leaseOwner,
        };
      });
      // Nobody reads the answers: queued and sent with the unit's commit (one round trip for the batch).
      await deferWrite(tx, RECORD_OUTCOMES_SQL, [JSON.stringify(rows)]);
    }
    if (attempts.length > 0) {
      const rows = attempts.map(({ delivery: { state: s }, attempt: a }, index) => ({
        ord: index, delivery_id: s.id, endpoint_id: s.endpointId, organization_id: s.organizationId, environment: s.environment, number: a.number,
        started_at: a.startedAt, duration_ms: a.durationMs, response_status: a.responseStatus, succeeded: a.succeeded, error: a.error, is_test: s.isTest,
      }));
      // seq comes from a sequence (ordering each delivery's attempts), in the order of the batch.
      await deferWrite(
        tx,
        `insert into webhook_delivery_attempts (delivery_id, endpoint_id, organization_id, environment, number, started_at, duration_ms,
           response_status, succeeded, error, is_test)
         select v.delivery_id, v.endpoint_id, v.organization_id, v.environment, v.number, v.started_at, v.duration_ms, v.response_status,
           v.succeeded, v.error, v.is_test
           from jsonb_to_recordset(?::jsonb) as v(ord int4, delivery_id text, endpoint_id text, organization_id text, environment text, number int4,
             started_at timestamptz, duration_ms int4, response_status int4, succeeded boolean, error text, is_test boolean)
          order by v.ord`,
        [JSON.stringify(rows)],
      );
    }
  }

  async findByIds(tx: Transaction, ids: readonly string[], options: { forUpdate?: boolean } = {}): Promise<WebhookDelivery[]> {
    if (ids.length === 0) return [];
    const rows = await entityManager(tx).execute<DeliveryRow[]>(
      `select ${DELIVERY_COLUMNS} from webhook_deliveries where id in (select jsonb_array_elements_text(?::jsonb)) order by id
        ${options.forUpdate ? 'for no key update' : ''}`,
      [JSON.stringify(ids)],
    );
    return rows.map((row) => deliveryFromRow(row));
  }

  async insertIfAbsent(tx: Transaction, delivery: WebhookDelivery, lease?: { owner: string; until: Date }): Promise<boolean> {
    const s = delivery.state;
    const rows = await entityManager(tx).execute(
      `insert into webhook_deliveries (id, organization_id, environment, endpoint_id, event_id, event_type, body, status, attempts,
         next_retry_at, is_test, lease_owner, lease_until, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (event_id, endpoint_id) do nothing returning id`,
      [s.id, s.organizationId, s.environment, s.endpointId, s.eventId, s.eventType, s.body, s.status, s.attempts, s.nextRetryAt, s.isTest,
        lease?.owner ?? null, lease?.until ?? null, s.createdAt, s.updatedAt],
    );
    return rows.length === 1;
  }

  async update(tx: Transaction, delivery: WebhookDelivery, requestHeaders?: Record<string, string> | null): Promise<void> {
    const s = delivery.state;
    // Nobody reads the answer: queued and sent with the unit's next statement or its commit (one round trip).
    await deferWrite(
      tx,
      `update webhook_deliveries set status = ?, attempts = ?, next_retry_at = ?, last_response = ?::jsonb, updated_at = ?
         ${requestHeaders !== undefined ? ', request_headers = ?::jsonb' : ''}
       where id = ?`,
      [s.status, s.attempts, s.nextRetryAt, s.lastResponse === null ? null : JSON.stringify(s.lastResponse), s.updatedAt,
        ...(requestHeaders !== undefined ? [requestHeaders === null ? null : JSON.stringify(requestHeaders)] : []), s.id],
    );
  }

  async find(tx: Transaction, scope: TenantScope, endpointId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<WebhookDelivery | null> {
    const em = entityManager(tx);
    const rows = await em.execute<DeliveryRow[]>(
      `select ${DELIVERY_COLUMNS} from webhook_deliveries where id = ? and endpoint_id = ? and organization_id = ? and environment = ?
        ${options.forUpdate ? 'for no key update' : ''}`,
      [id, endpointId, scope.organizationId, scope.environment],
    );
    if (!rows[0]) return null;
    return deliveryFromRow(rows[0], await this.attempts(tx, id));
  }

  async findById(tx: Transaction, id: string, options: { forUpdate?: boolean } = {}): Promise<WebhookDelivery | null> {
    const rows = await entityManager(tx).execute<DeliveryRow[]>(
      `select ${DELIVERY_COLUMNS} from webhook_deliveries where id = ? ${options.forUpdate ? 'for no key update' : ''}`,
      [id],
    );
    return rows[0] ? deliveryFromRow(rows[0]) : null;
  }

  async attempts(tx: Transaction, deliveryId: string): Promise<AttemptRow[]> {
    return entityManager(tx).execute<AttemptRow[]>(
      `select delivery_id, seq, number, started_at, duration_ms, response_status, succeeded, error
         from webhook_delivery_attempts where delivery_id = ? order by seq`,
      [deliveryId],
    );
  }

  async cancelQueued(tx: Transaction, endpointId: string, now: Date): Promise<number> {
    const rows = await entityManager(tx).execute(
      `update webhook_deliveries set status = 'disabled', next_retry_at = null, updated_at = ?
        where endpoint_id = ? and status in ('pending', 'failed') returning id`,
      [now, endpointId],
    );
    return rows.length;
  }
}

/**
 * Where a recorded attempt's state is stored: only rows still as claimed move (queued, and with the expected attempt
 * count when one is given; the check is the write's own, under its row lock), so a manual retry or cancel meanwhile
 * wins.
 */
const OUTCOME_MOVES = `(v.move and d.status in ('pending', 'failed') and (v.expected_attempts is null or d.attempts = v.expected_attempts))`;
/** Whether the recording worker still holds the row's lease, which the record releases. */
const LEASE_HELD = `(d.lease_owner = v.lease_owner)`;

/**
 * Stores each attempt's outcome and releases its lease in ONE row version. As two updates (state, then lease) every
 * delivery was written twice, each time with all its indexes, since the state and the lease are both in index
 * predicates (no HOT update): under the paced fan-out the second update alone was a fifth of PostgreSQL's time.
 */
const RECORD_OUTCOMES_SQL = `update webhook_deliveries d set
     status = case when ${OUTCOME_MOVES} then v.status else d.status end,
     attempts = case when ${OUTCOME_MOVES} then v.attempts else d.attempts end,
     next_retry_at = case when ${OUTCOME_MOVES} then v.next_retry_at else d.next_retry_at end,
     last_response = case when ${OUTCOME_MOVES} then v.last_response else d.last_response end,
     updated_at = case when ${OUTCOME_MOVES} then v.updated_at else d.updated_at end,
     request_headers = case when ${OUTCOME_MOVES} and v.set_headers then v.request_headers else d.request_headers end,
     lease_owner = case when ${LEASE_HELD} then null else d.lease_owner end,
     lease_until = case when ${LEASE_HELD} then null else d.lease_until end
   from jsonb_to_recordset(?::jsonb) as v(id text, move boolean, expected_attempts int4, status text, attempts int4, next_retry_at timestamptz,
     last_response jsonb, updated_at timestamptz, set_headers boolean, request_headers jsonb, lease_owner text)
   where d.id = v.id and (${OUTCOME_MOVES} or ${LEASE_HELD})`;
