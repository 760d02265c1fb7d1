import { API_VERSION, type EventOutbox, type NewEvent, type StoredEvent } from '../../domain/ports/event-outbox';
import type { Clock } from '../../domain/ports/clock';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type { Transaction } from '../../domain/ports/transactor';
import { entityManager } from '../persistence/mikro-orm-transactor';

export interface EventRow {
  id: string;
  organization_id: string;
  environment: 'sandbox' | 'live';
  type: string;
  api_version: string;
  sequence: number;
  data: { object: Record<string, unknown>; previousAttributes: Record<string, unknown> | null };
  created_at: Date;
}

export function storedEventFromRow(row: EventRow): StoredEvent {
  return {
    id: row.id,
    type: row.type,
    apiVersion: row.api_version,
    createdAt: new Date(row.created_at).toISOString(),
    environment: row.environment,
    sequence: Number(row.sequence),
    data: row.data,
    organizationId: row.organization_id,
  };
}

/**
 * Appends events in the caller's transaction with ONE statement per organization: the CTE bumps the
 * organization's sequence counter and inserts the batch, so the row lock on the counter is held only from
 * here to commit (use cases append last) and sequences follow commit order within an organization.
 */
export class SqlEventOutbox implements EventOutbox {
  constructor(private readonly ids: IdGenerator, private readonly clock: Clock) {}

  async append(tx: Transaction, events: readonly NewEvent[]): Promise<StoredEvent[]> {
    const byOrganization = new Map<string, NewEvent[]>();
    for (const event of events) {
      const list = byOrganization.get(event.scope.organizationId) ?? [];
      list.push(event);
      byOrganization.set(event.scope.organizationId, list);
    }
    const stored: StoredEvent[] = [];
    const createdAt = this.clock.now();
    for (const [organizationId, batch] of byOrganization) {
      const records = batch.map((event, index) => ({
        ord: index + 1,
        id: this.ids.next('evt_'),
        environment: event.scope.environment,
        type: event.type,
        object_type: event.object.object,
        object_id: event.object.id,
        data: { object: event.object, previousAttributes: event.previousAttributes ?? null },
      }));
      const rows = await entityManager(tx).execute<EventRow[]>(
        `with seq as (
           insert into organization_sequences as s (organization_id, last_value) values (?, ?)
           on conflict (organization_id) do update set last_value = s.last_value + excluded.last_value
           returning last_value
         )
         insert into events (id, organization_id, environment, type, api_version, sequence, object_type, object_id, data, created_at)
         select e.id, ?, e.environment, e.type, ?, seq.last_value - ? + e.ord, e.object_type, e.object_id, e.data, ?
           from seq, jsonb_to_recordset(?::jsonb) as e(ord int, id text, environment text, type text, object_type text, object_id text, data jsonb)
         returning id, organization_id, environment, type, api_version, sequence, data, created_at`,
        [organizationId, records.length, organizationId, API_VERSION, records.length, createdAt, JSON.stringify(records)],
      );
      rows.sort((a, b) => Number(a.sequence) - Number(b.sequence));
      stored.push(...rows.map(storedEventFromRow));
    }
    return stored;
  }
}
