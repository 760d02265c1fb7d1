/**
 * Publishes committed events from the outbox to the event transport, then marks them published.
 *
 * Claiming sets a short lease (FOR UPDATE SKIP LOCKED) and gives unnumbered events the next sequence
 * numbers of their organization, in one statement (see claimSql); several relays share the work and
 * nothing is held while the transport is called. Numbering here rather than at append keeps
 * concurrent requests of one organization from queueing on its counter. A relay that dies after
 * claiming leaves the lease to expire and the events are claimed again; the transport drops the
 * duplicate by event id and consumers deduplicate too. Events committed while the transport is down stay
 * unpublished and leave as soon as it answers again: the transport says when it is reachable again and the relay
 * tries at once, and between failed tries it waits at most a second (MAX_RETRY_DELAY_MS).
 *
 * Two ways to find work. A commit in this process nudges the relay with its event ids, which are claimed by
 * primary key: cheap however many published rows the outbox index still holds until vacuum (a scan walked
 * thousands of them per claim under load). A scan of the whole outbox runs at least every poll interval, for
 * events of other processes, of a relay that died, or whose publication failed.
 */
import type { Transactor } from '../../domain/ports/transactor';
import type { StoredEvent } from '../../domain/ports/event-outbox';
import { deferWrite, entityManager } from '../persistence/mikro-orm-transactor';
import type { Logger } from '../logging/logger';
import type { EventTransport } from './event-transport';
import { NUMBERING_CTES } from './event-sequences';
import { contextOf, inSpan, SpanKind } from '../tracing/tracing';
import { EVENT_COLUMNS, storedEventFromRow, type EventRow } from './sql-event-outbox';

export interface OutboxRelayOptions {
  readonly batchSize?: number;
  readonly pollIntervalMs?: number;
  readonly leaseMs?: number;
  /** Told of the events of each batch the stream accepted (metrics count payment outcomes there, once). */
  readonly onPublished?: (events: readonly StoredEvent[]) => void;
}

/**
 * Longest wait between failed tries. A failed try is cheap (a claim, and a publish bounded by the transport's short
 * timeout while it is unreachable), and a longer back-off only delays recovery: it was 10 s, on top of a 5 s publish
 * timeout, so events left about 14 s after NATS returned.
 */
const MAX_RETRY_DELAY_MS = 1_000;

export class OutboxRelay {
  private timer: NodeJS.Timeout | null = null;
  private stopListening: (() => void) | null = null;
  private draining: Promise<void> | null = null;
  private again = false;
  /** Ids committed in this process and not yet claimed. */
  private readonly nudged = new Set<string>();
  private lastScanAt = 0;
  private scanRequested = false;
  private stopped = true;
  /** Set by `stop` (a relay never started may still `drain`): a scan under way then ends after its current batch. */
  private stopRequested = false;
  private failures = 0;
  /** Marks of published batches still on their way to the database (see markPublished). */
  private readonly marking = new Set<Promise<void>>();
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly onPublished: ((events: readonly StoredEvent[]) => void) | undefined;
  private readonly claimByIdSql = claimSql(
    // `= any(array(...))`, not `in (select ...)`: with the latter the planner merge-joined the ids against the
    // whole unpublished index (dead entries included until vacuum), ~40 ms per claim under load.
    'id = any(array(select jsonb_array_elements_text(?::jsonb)))',
    '',
  );
  private readonly claimByScanSql = claimSql('true', 'limit ?');

  constructor(
    private readonly transactor: Transactor,
    private readonly transport: EventTransport,
    private readonly logger: Logger,
    options: OutboxRelayOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 200;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.onPublished = options.onPublished;
  }

  start(): void {
    this.stopped = false;
    this.stopRequested = false;
    this.stopListening ??= this.transport.onReachableAgain(() => this.retryNow());
    this.schedule(0);
  }

  /** The transport is back: publish what waited (a scan finds it) instead of waiting out the back-off. */
  private retryNow(): void {
    if (this.stopped) return;
    this.failures = 0;
    this.scanRequested = true;
    void this.run();
  }

  /** Called after each commit that wrote events: publish them now rather than at the next poll. */
  nudge(eventIds: readonly string[] = []): void {
    if (this.stopped) return;
    for (const id of eventIds) this.nudged.add(id);
    if (this.draining) this.again = true;
    else if (this.failures === 0) void this.run(); // after a failure, the backed-off timer retries
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopRequested = true;
    this.stopListening?.();
    this.stopListening = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.draining;
    await Promise.all(this.marking);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.drain();
    }, delayMs);
  }

  /**
   * Publishes everything unpublished (a scan of the outbox); resolves when it is empty, and what it published is
   * marked so, or when the transport failed.
   */
  async drain(): Promise<void> {
    this.scanRequested = true;
    await this.run();
    await Promise.all(this.marking);
  }

  /** Publishes the nudged events, and scans the outbox when asked to or when the last scan is a poll interval old. */
  private run(): Promise<void> {
    if (this.draining) {
      this.again = true;
      return this.draining;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.draining = (async () => {
      let nextDelay = this.pollIntervalMs;
      try {
        do {
          this.again = false;
          while (this.nudged.size > 0 && !this.stopped) await this.publishBatch(this.takeNudged());
          if (this.scanRequested || Date.now() - this.lastScanAt >= this.pollIntervalMs) {
            this.scanRequested = false;
            this.lastScanAt = Date.now();
            // A stopping relay publishes what it claimed, and claims no more (another relay, or the next start, will).
            while ((await this.publishBatch(null)) === this.batchSize && !this.stopRequested) {
              /* keep going while full batches come back */
            }
          }
        } while ((this.again || this.nudged.size > 0 || this.scanRequested) && !this.stopped);
        this.failures = 0;
      } catch (error) {
        this.failures += 1;
        nextDelay = Math.min(this.pollIntervalMs * 2 ** Math.min(this.failures, 5), MAX_RETRY_DELAY_MS);
        this.logger.warn({ err: error, failures: this.failures }, 'outbox relay could not publish; will retry');
      } finally {
        this.draining = null;
        this.schedule(nextDelay);
      }
    })();
    return this.draining;
  }

  /**
   * Off the relay's path: the next batch is claimed while this is written, and its commit does not wait for the
   * WAL flush (synchronous_commit off for this transaction only). Both are safe because a lost mark only means a
   * second publication: the events stay leased, so no relay claims them before the lease expires, and then they are
   * published again, which the stream drops by event id (and consumers deduplicate). Measured under the paced
   * fan-out load: a relay cycle was claim 48 + publish 32 + mark 55 ms at p50, the mark being a commit's flush.
   */
  private markPublished(ids: readonly string[]): void {
    const marking = this.transactor.run(async (tx) => {
      await deferWrite(tx, 'set local synchronous_commit = off');
      await deferWrite(tx, MARK_PUBLISHED_SQL, [JSON.stringify(ids)]);
    }).then(
      () => undefined,
      (error: unknown) => this.logger.warn({ err: error, events: ids.length }, 'outbox relay could not mark events published; they are published again after their lease'),
    );
    this.marking.add(marking);
    void marking.finally(() => this.marking.delete(marking));
  }

  private takeNudged(): string[] {
    const ids: string[] = [];
    for (const id of this.nudged) {
      if (ids.length === this.batchSize) break;
      ids.push(id);
      this.nudged.delete(id);
    }
    return ids;
  }

  /** Claims and publishes these events (those still unpublished and unleased), or a batch found by scanning. */
  private async publishBatch(ids: readonly string[] | null): Promise<number> {
    // One statement claims a batch (lease), numbers what has no sequence yet, and commits: one round trip where a
    // transaction of three statements took five. The transport is called after, with nothing held.
    const claim = ids ? this.claimByIdSql : this.claimByScanSql;
    const rows = await this.transactor.read((tx) => entityManager(tx).execute<EventRow[]>(claim, [ids ? JSON.stringify(ids) : this.batchSize, this.leaseMs]));
    if (rows.length === 0) return 0;
    const events = rows.map(storedEventFromRow).sort((a, b) => a.sequence - b.sequence);
    const traceparents = new Map(rows.map((row) => [row.id, row.traceparent]));
    // Each publish continues the trace of the transaction that wrote the event (its outbox row's traceparent).
    const results = await Promise.allSettled(
      events.map((event) =>
        inSpan(`publish ${event.type}`, { kind: SpanKind.PRODUCER, parent: contextOf(traceparents.get(event.id)), attributes: { 'messaging.message.id': event.id, 'event.type': event.type } }, () =>
          this.transport.publish(event),
        ),
      ),
    );
    const published = events.filter((_, index) => results[index].status === 'fulfilled').map((event) => event.id);
    if (published.length > 0) this.markPublished(published);
    if (published.length > 0 && this.onPublished) this.onPublished(published.length === events.length ? events : events.filter((_, index) => results[index].status === 'fulfilled'));
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) {
      // Release the lease at once so the next attempt does not wait for it to expire.
      const unpublished = events.filter((_, index) => results[index].status === 'rejected').map((event) => event.id);
      await this.transactor.read((tx) =>
        entityManager(tx).execute(`update events set relay_lease_until = null where id = any(array(select jsonb_array_elements_text(?::jsonb)))`, [JSON.stringify(unpublished)], 'run'),
      );
      throw failed.reason;
    }
    return rows.length;
  }
}

/**
 * Sets published_at (and ends the lease) of published events. Their lease keeps other relays off them until then.
 */
const MARK_PUBLISHED_SQL = `update events set published_at = now(), relay_lease_until = null where id = any(array(select jsonb_array_elements_text(?::jsonb)))`;

/**
 * The claim as one statement: lock the claimable rows (SKIP LOCKED, so relays share the work), number those without
 * a sequence (NUMBERING_CTES, shared with append's `assignSequence`), and set the lease.
 * Parameters: the filter's own (ids or batch size), then the lease in milliseconds.
 */
function claimSql(filter: string, limit: string): string {
  const returned = [...EVENT_COLUMNS.split(', '), 'traceparent'].map((column) => `e.${column}`).join(', ');
  return `with claimed as (
      select id, organization_id, sequence from events
       where ${filter} and published_at is null and (relay_lease_until is null or relay_lease_until < now())
       order by id ${limit} for update skip locked
    ), ${NUMBERING_CTES}
    update events e set sequence = n.sequence, relay_lease_until = now() + (? * interval '1 millisecond')
      from numbered n where e.id = n.id
    returning ${returned}`;
}
