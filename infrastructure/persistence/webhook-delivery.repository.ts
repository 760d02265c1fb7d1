import type { Transaction } from '../../domain/ports/transactor';
import type { NewAttemptRecord, WebhookDeliveryRepository } from '../../domain/ports/webhook-repositories';
import type { Environment, TenantScope } from '../../domain/shared/environment';
import { WebhookDelivery, type StoredResponse } from '../../domain/webhook/webhook-delivery';
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
    attemptLog: attempts.map((a) => ({
      number: Number(a.number),
      startedAt: new Date(a.started_at),
      durationMs: Number(a.duration_ms),
      responseStatus: a.response_status === null ? null : Number(a.response_status),
      succeeded: a.succeeded,
      error: a.error,
    })),
    isTest: row.is_test,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  });
}

export class SqlWebhookDeliveryRepository implements WebhookDeliveryRepository {
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

  async appendAttempt(tx: Transaction, record: NewAttemptRecord): Promise<void> {
    const s = record.delivery.state;
    const a = record.attempt;
    await deferWrite(
      tx,
      `insert into webhook_delivery_attempts (delivery_id, seq, endpoint_id, organization_id, environment, number, started_at, duration_ms,
         response_status, succeeded, error, is_test)
       select ?, coalesce(max(seq), 0) + 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? from webhook_delivery_attempts where delivery_id = ?`,
      [s.id, s.endpointId, s.organizationId, s.environment, a.number, a.startedAt, a.durationMs, a.responseStatus, a.succeeded, a.error, s.isTest, s.id],
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

  async releaseLease(tx: Transaction, id: string, owner: string): Promise<void> {
    await deferWrite(tx, `update webhook_deliveries set lease_owner = null, lease_until = null where id = ? and lease_owner = ?`, [id, owner]);
  }
}
