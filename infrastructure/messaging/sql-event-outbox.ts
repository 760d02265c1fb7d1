import { API_VERSION, type AppendedEvent, type EventOutbox, type NewEvent, type StoredEvent } from '../../domain/ports/event-outbox';
import type { Clock } from '../../domain/ports/clock';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type { Transaction } from '../../domain/ports/transactor';
import { deferWrite, entityManager, noteEventsWritten } from '../persistence/mikro-orm-transactor';

export interface EventRow {
  id: string;
  organization_id: string;
  environment: 'sandbox' | 'live';
  type: string;
  api_version: string;
  sequence: number | null;
  data: { object: Record<string, unknown>; previousAttributes: Record<string, unknown> | null };
  created_at: Date;
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
    const insert = `insert into events (id, organization_id, environment, type, api_version, object_type, object_id, data, created_at)
       select e.id, e.organization_id, e.environment, e.type, ?, e.object_type, e.object_id, e.data, ?
         from jsonb_to_recordset(?::jsonb) as e(id text, organization_id text, environment text, type text, object_type text, object_id text, data jsonb)`;
    const params = [API_VERSION, createdAt, JSON.stringify(records)];
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
      const numbered = await numberEvents(tx, ordered.map((row) => ({ id: row.id, organizationId: row.organization_id })));
      return ordered.map((row) => storedEventFromRow({ ...row, sequence: numbered.get(row.id)! }));
    }
    // Nobody reads this insert's answer: it travels with the unit's other writes at commit.
    await deferWrite(tx, insert, params);
    return ordered.map(appendedEventFromRow);
  }
}

/**
 * Reserves the next numbers of each organization's counter for these events, in the order given, and
 * returns them (the caller writes them). Counters are locked in organization-id order so two relays (or a
 * relay and an appender) never deadlock.
 */
export async function allocateSequences(tx: Transaction, events: ReadonlyArray<{ id: string; organizationId: string }>): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const event of events) counts.set(event.organizationId, (counts.get(event.organizationId) ?? 0) + 1);
  if (counts.size === 0) return new Map();
  const counters = await entityManager(tx).execute<Array<{ organization_id: string; last_value: number }>>(
    `insert into organization_sequences as s (organization_id, last_value)
     select c.organization_id, c.n from jsonb_to_recordset(?::jsonb) as c(organization_id text, n int8) order by c.organization_id
     on conflict (organization_id) do update set last_value = s.last_value + excluded.last_value
     returning organization_id, last_value`,
    [JSON.stringify([...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([organization_id, n]) => ({ organization_id, n })))],
  );
  const next = new Map(counters.map((row) => [row.organization_id, Number(row.last_value) - counts.get(row.organization_id)! + 1]));
  const numbered = new Map<string, number>();
  for (const event of events) {
    const sequence = next.get(event.organizationId)!;
    numbered.set(event.id, sequence);
    next.set(event.organizationId, sequence + 1);
  }
  return numbered;
}

/** Allocates and writes sequences (append with `assignSequence`). */
export async function numberEvents(tx: Transaction, events: ReadonlyArray<{ id: string; organizationId: string }>): Promise<Map<string, number>> {
  const numbered = await allocateSequences(tx, events);
  if (numbered.size > 0) {
    await entityManager(tx).execute(
      `update events e set sequence = v.seq from jsonb_to_recordset(?::jsonb) as v(id text, seq int8) where e.id = v.id`,
      [JSON.stringify([...numbered].map(([id, seq]) => ({ id, seq })))],
    );
  }
  return numbered;
}
