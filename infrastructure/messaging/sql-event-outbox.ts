import { API_VERSION, type AppendedEvent, type EventOutbox, type NewEvent, type StoredEvent } from '../../domain/ports/event-outbox';
import type { Clock } from '../../domain/ports/clock';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type { Transaction } from '../../domain/ports/transactor';
import { deferWrite, entityManager, noteEventsWritten } from '../persistence/mikro-orm-transactor';
import { NUMBERING_CTES } from './event-sequences';
import { currentTraceparent } from '../tracing/tracing';

export interface EventRow {
  id: string;
  organization_id: string;
  environment: 'sandbox' | 'live';
  type: string;
  api_version: string;
  sequence: number | null;
  data: { object: Record<string, unknown>; previousAttributes: Record<string, unknown> | null };
  created_at: Date;
  /** The W3C traceparent of the unit that appended it (tracing on), read by the relay to continue the trace. */
  traceparent?: string | null;
}

export const EVENT_COLUMNS = 'id, organization_id, environment, type, api_version, sequence, data, created_at';

export function appendedEventFromRow(row: EventRow): AppendedEvent {
  return {
    id: row.id,
    type: row.type,
    apiVersion: row.api_version,
    createdAt: new Date(row.created_at).toISOString(),
    environment: row.environment,
    sequence: row.sequence === null ? null : Number(row.sequence),
    data: row.data,
    organizationId: row.organization_id,
  };
}

/** A row the relay has numbered (or that was numbered on append). */
export function storedEventFromRow(row: EventRow): StoredEvent {
  if (row.sequence === null) throw new Error(`event ${row.id} has no sequence yet`);
  return { ...appendedEventFromRow(row), sequence: Number(row.sequence) };
}

/**
 * Appends events in the caller's unit of work with one INSERT per call, queued to travel with the unit's
 * other writes (one round trip at commit). Sequences are normally given by the relay (see OutboxRelay); `assignSequence` numbers them here instead, holding the organization's
 * counter until the caller commits, for the rare caller that shows the sequence at once.
 */
export class SqlEventOutbox implements EventOutbox {
  constructor(private readonly ids: IdGenerator, private readonly clock: Clock) {}

  append(tx: Transaction, events: readonly NewEvent[]): Promise<AppendedEvent[]>;
  append(tx: Transaction, events: readonly NewEvent[], options: { assignSequence: true }): Promise<StoredEvent[]>;
  async append(tx: Transaction, events: readonly NewEvent[], options?: { assignSequence: true }): Promise<AppendedEvent[]> {
    if (events.length === 0) return [];
    const createdAt = this.clock.now();
    const records = events.map((event) => ({
      id: this.ids.next('evt_'),
      organization_id: event.scope.organizationId,
      environment: event.scope.environment,
      type: event.type,
      object_type: event.object.object,
      object_id: event.object.id,
      data: { object: event.object, previousAttributes: event.previousAttributes ?? null },
    }));
    noteEventsWritten(tx, records.map((record) => record.id));
    const insert = `insert into events (id, organization_id, environment, type, api_version, object_type, object_id, data, created_at, traceparent)
       select e.id, e.organization_id, e.environment, e.type, ?, e.object_type, e.object_id, e.data, ?, ?
         from jsonb_to_recordset(?::jsonb) as e(id text, organization_id text, environment text, type text, object_type text, object_id text, data jsonb)`;
    const params = [API_VERSION, createdAt, currentTraceparent() ?? null, JSON.stringify(records)];
    const ordered: EventRow[] = records.map((record) => ({
      id: record.id,
      organization_id: record.organization_id,
      environment: record.environment,
      type: record.type,
      api_version: API_VERSION,
      sequence: null,
      data: record.data,
      created_at: createdAt,
    }));
    if (options?.assignSequence) {
      await entityManager(tx).execute(insert, params, 'run');
      const numbered = await numberEvents(tx, ordered);
      return ordered.map((row) => storedEventFromRow({ ...row, sequence: numbered.get(row.id)! }));
    }
    // Nobody reads this insert's answer: it travels with the unit's other writes at commit.
    await deferWrite(tx, insert, params);
    return ordered.map(appendedEventFromRow);
  }
}

/** Numbers these events (append with `assignSequence`), as the relay's claim does, and returns their sequences. */
export async function numberEvents(tx: Transaction, events: ReadonlyArray<{ id: string }>): Promise<Map<string, number>> {
  if (events.length === 0) return new Map();
  const rows = await entityManager(tx).execute<Array<{ id: string; sequence: number }>>(
    `with claimed as (
       select id, organization_id, sequence from events where id = any(array(select jsonb_array_elements_text(?::jsonb))) order by id for update
     ), ${NUMBERING_CTES}
     update events e set sequence = n.sequence from numbered n where e.id = n.id returning e.id, e.sequence`,
    [JSON.stringify(events.map((event) => event.id))],
  );
  return new Map(rows.map((row) => [row.id, Number(row.sequence)]));
}
