/**
 * Gauges read on scrape: what the database says is waiting (outbox lag, timers and jobs due, webhook endpoints
 * failing or disabled), the JetStream consumers' backlog and the connection pool's use. The queries run at most once
 * per `cacheMs` whatever the number of scrapers, and a scrape never waits on more than one round of them.
 */
import { Gauge } from 'prom-client';
import type { Orm } from '../persistence/orm';
import type { EventTransport } from '../messaging/event-transport';
import type { ServiceMetrics } from './service-metrics';

export interface DatabaseGaugeSources {
  readonly orm: Orm;
  readonly transport: EventTransport;
  readonly now?: () => Date;
  /** Default 5 s: a scrape every 15 s reads fresh numbers, a burst of scrapers costs one round of queries. */
  readonly cacheMs?: number;
}

interface Snapshot {
  readonly outboxLagSeconds: number;
  readonly outboxUnpublished: number;
  readonly jobsDue: Readonly<Record<'flow_run_waits' | 'reconciliations' | 'expired_routings', number>>;
  readonly endpoints: ReadonlyArray<{ status: string; count: number }>;
  readonly consumers: ReadonlyArray<{ consumer: string; pending: number; ackPending: number }>;
}

const ENDPOINT_STATUSES = ['active', 'failing', 'disabled', 'auto_disabled'] as const;

// One statement, one round trip; each count uses the table's own queue index (partial on the waiting rows).
const SNAPSHOT_SQL = `
  select
    (select extract(epoch from (?::timestamptz - min(created_at))) from events where published_at is null) as outbox_lag,
    (select count(*) from events where published_at is null)::int as outbox_unpublished,
    (select count(*) from flow_run_waits where due_at <= ?::timestamptz)::int as waits_due,
    (select count(*) from payment_reconciliations where status = 'pending' and next_at <= ?::timestamptz)::int as reconciliations_due,
    (select count(*) from payment_routings where lease_until < ?::timestamptz)::int as routings_expired,
    (select coalesce(json_agg(json_build_object('status', status, 'count', n)), '[]'::json)
       from (select status, count(*)::int as n from webhook_endpoints group by status) s) as endpoints`;

export function registerDatabaseGauges(metrics: ServiceMetrics, sources: DatabaseGaugeSources): void {
  const now = sources.now ?? (() => new Date());
  const cacheMs = sources.cacheMs ?? 5_000;
  let cached: { at: number; snapshot: Promise<Snapshot> } | null = null;
  const snapshot = (): Promise<Snapshot> => {
    const at = Date.now();
    if (!cached || at - cached.at >= cacheMs) {
      const reading = readSnapshot(sources, now());
      cached = { at, snapshot: reading };
      // A failed read is not kept: the next scrape tries again.
      reading.catch(() => {
        if (cached?.snapshot === reading) cached = null;
      });
    }
    return cached.snapshot;
  };
  const registers = [metrics.registry];

  new Gauge({
    name: 'pos_outbox_lag_seconds',
    help: 'Age of the oldest event not yet published to the event stream (0 when none waits).',
    registers,
    async collect() {
      this.set((await snapshot()).outboxLagSeconds);
    },
  });
  new Gauge({
    name: 'pos_outbox_unpublished_events',
    help: 'Events committed and not yet published.',
    registers,
    async collect() {
      this.set((await snapshot()).outboxUnpublished);
    },
  });
  new Gauge({
    name: 'pos_jobs_due',
    help: 'Work due and not done: flow_run_waits (timers, deadlines), reconciliations (unknown outcomes), expired_routings (payments whose routing lease expired: crash recovery).',
    labelNames: ['job'] as const,
    registers,
    async collect() {
      for (const [job, count] of Object.entries((await snapshot()).jobsDue)) this.set({ job }, count);
    },
  });
  new Gauge({
    name: 'pos_webhook_endpoints',
    help: 'Webhook endpoints by status (failing: its last attempt failed; auto_disabled: switched off after failing for days).',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const rows = (await snapshot()).endpoints;
      for (const status of ENDPOINT_STATUSES) this.set({ status }, rows.find((row) => row.status === status)?.count ?? 0);
    },
  });
  new Gauge({
    name: 'pos_jetstream_consumer_pending',
    help: 'Messages of the stream a durable consumer has not received yet (JetStream num_pending).',
    labelNames: ['consumer'] as const,
    registers,
    async collect() {
      for (const row of (await snapshot()).consumers) this.set({ consumer: row.consumer }, row.pending);
    },
  });
  new Gauge({
    name: 'pos_jetstream_consumer_ack_pending',
    help: 'Messages a durable consumer received and has not acknowledged yet (JetStream num_ack_pending).',
    labelNames: ['consumer'] as const,
    registers,
    async collect() {
      for (const row of (await snapshot()).consumers) this.set({ consumer: row.consumer }, row.ackPending);
    },
  });
  new Gauge({
    name: 'pos_db_pool_connections',
    help: 'Database pool connections of this process: used, free, and requests waiting for one (pending).',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const pool = poolOf(sources.orm);
      if (!pool) return;
      this.set({ state: 'used' }, pool.numUsed());
      this.set({ state: 'free' }, pool.numFree());
      this.set({ state: 'pending' }, pool.numPendingAcquires());
    },
  });
}

async function readSnapshot(sources: DatabaseGaugeSources, now: Date): Promise<Snapshot> {
  const at = now.toISOString();
  const [rows, consumers] = await Promise.all([
    sources.orm.em.fork({ useContext: false }).execute<Array<Record<string, unknown>>>(SNAPSHOT_SQL, [at, at, at, at]),
    sources.transport.consumerBacklog ? sources.transport.consumerBacklog() : Promise.resolve([]),
  ]);
  const row = rows[0] ?? {};
  const endpoints = typeof row.endpoints === 'string' ? JSON.parse(row.endpoints) : row.endpoints;
  return {
    outboxLagSeconds: Math.max(0, Number(row.outbox_lag ?? 0)),
    outboxUnpublished: Number(row.outbox_unpublished ?? 0),
    jobsDue: {
      flow_run_waits: Number(row.waits_due ?? 0),
      reconciliations: Number(row.reconciliations_due ?? 0),
      expired_routings: Number(row.routings_expired ?? 0),
    },
    endpoints: (endpoints as Array<{ status: string; count: number }>) ?? [],
    consumers,
  };
}

interface KnexPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/** knex's tarn pool under MikroORM (null before the first connection, or on another driver). */
function poolOf(orm: Orm): KnexPool | null {
  const connection = orm.em.getConnection() as unknown as { getKnex?: () => { client?: { pool?: KnexPool } } };
  return connection.getKnex?.().client?.pool ?? null;
}
