/**
 * Sends due webhook deliveries. Claims rows due now with a lease in one autocommitted statement (FOR UPDATE
 * SKIP LOCKED) that returns them whole, so several workers share the work without ever sending the same
 * delivery at the same time; a killed worker's leases expire and another worker takes the deliveries over.
 * Woken at once when deliveries become due in this process (fan-out, manual retry); polls otherwise.
 *
 * Concurrency is per delivery and bounded twice: `maxConcurrent` leased per process, and at most
 * `perEndpoint` leased deliveries per endpoint across all workers, so one slow endpoint (10 s timeouts)
 * can never occupy every slot and delay the others. An endpoint whose latest attempt from this process failed
 * (no answer, or not 2xx) gets `failingPerEndpoint` instead until one succeeds: a dead endpoint then holds a few
 * slots, not a healthy endpoint's share, however many endpoints are down at once.
 *
 * Fan-out in this process hands new deliveries over directly (`reserve`): inserted leased to this worker and
 * sent at once, no claim round trip (for an event offered the first time, while the insert is on its way: the
 * attempt is then recorded only once the row is stored, see `launch`). It does so only within this process's
 * limits, and only while no due delivery of that endpoint waits for a claim (so new events never overtake a
 * backlog; after the process bound was met, none until a claim); the rest waits for the claim.
 * Handed-over deliveries are bounded per process: in total by leases not yet recorded, per endpoint by HTTP
 * requests still open, which is what a slow endpoint holds. (Counting unrecorded leases per endpoint made a
 * fast endpoint look busy while its outcomes waited for the next group commit: at 1,000 deliveries/s most
 * deliveries then went through claims, whose queries cost PostgreSQL more than the deliveries.) Claims bound
 * leases per endpoint across all workers.
 *
 * Outcomes are recorded in groups: attempts that finish while a record transaction is running are written
 * together by the next one (group commit), so the database sees a few statements per batch instead of a
 * transaction per delivery. A slot (and its lease) is held until its attempt is recorded.
 *
 * Stopping (a draining process, contract.md 8) claims and reserves nothing more but finishes what it holds: every
 * attempt in flight is sent and recorded, and a handover reserved before the stop is still sent when its delivery
 * comes (its row is inserted leased to this worker: left unsent, nobody could take it before the lease expired).
 */
import type { AttemptDelivery, PendingRecord } from '../../application/webhook/attempt-delivery';
import type { DispatchSlot } from '../../application/webhook/webhook-deps';
import type { WebhookEndpoint } from '../../domain/webhook/webhook-endpoint';
import { attemptSucceeded, type WebhookDelivery } from '../../domain/webhook/webhook-delivery';
import type { Clock } from '../../domain/ports/clock';
import type { Logger } from '../logging/logger';
import type { Orm } from '../persistence/orm';
import { DELIVERY_COLUMNS, deliveryFromRow, type DeliveryRow } from '../persistence/webhook-delivery.repository';
import { contextOf, detached, inSpan, SpanKind, tracingRequestedOrStarted } from '../tracing/tracing';

/** Failing endpoints remembered per process; beyond, the oldest failure is forgotten (its endpoint gets the full bound). */
const MAX_REMEMBERED_FAILING = 10_000;

export interface DispatcherOptions {
  /** Identifies this worker's leases. */
  readonly workerId: string;
  readonly maxConcurrent?: number;
  readonly perEndpoint?: number;
  /** The bound of an endpoint whose latest attempt here failed. */
  readonly failingPerEndpoint?: number;
  readonly pollIntervalMs?: number;
  /** Most attempts recorded by one transaction. */
  readonly recordBatch?: number;
  /** Must exceed the HTTP timeout: a lease that expires mid-attempt lets another worker send a duplicate. */
  readonly leaseMs: number;
  /** Told of each attempt once the endpoint answered, failed to, or the delivery was skipped (metrics). */
  readonly onAttempt?: (pending: PendingRecord) => void;
}

export class WebhookDeliveryDispatcher {
  /** Sends in flight (their outcome then waits in `toRecord`). */
  private readonly sending = new Set<Promise<void>>();
  private readonly toRecord: PendingRecord[] = [];
  private recording: Promise<void> | null = null;
  /** Claimed or handed over, and not yet recorded: what `maxConcurrent` bounds. */
  private leased = 0;
  /** Held and not yet answered (or abandoned), per endpoint: what `perEndpoint` bounds for handovers. */
  private readonly openPerEndpoint = new Map<string, number>();
  /** Endpoints whose latest attempt from this process failed, oldest first (bounded, see markOutcome). */
  private readonly failing = new Set<string>();
  /** Due deliveries may be waiting for a claim: no handovers then, or new events would overtake older ones. */
  private backlog = true;
  /**
   * The same per endpoint: one of its deliveries was left to the claim because the endpoint was at its bound. Only
   * that endpoint's handovers stop (a dead endpoint must not send every other endpoint's deliveries through claims).
   * Cleared with `backlog`, by a claim that leaves nothing due behind.
   */
  private readonly waitingForClaim = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  /** Handovers reserved and not yet sent or released: a stop waits for them (see `reserve`). */
  private reserved = 0;
  private reservationsSettled: (() => void) | null = null;
  private readonly maxConcurrent: number;
  private readonly perEndpoint: number;
  private readonly failingPerEndpoint: number;
  private readonly pollIntervalMs: number;
  private readonly recordBatch: number;

  constructor(
    private readonly orm: Orm,
    private readonly attempt: AttemptDelivery,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: DispatcherOptions,
  ) {
    // Leases are held until the group commit records them, so a steady 1,000 deliveries/s keeps a few hundred
    // held; 256 was reached and stopped handovers (measured with `make bench`).
    this.maxConcurrent = options.maxConcurrent ?? 1024;
    // A fan-out batch hands an endpoint one delivery per event of the batch at once: with 32, a 100 events/s burst
    // met the bound, handovers stopped for every endpoint and 15-20 % of deliveries waited for claims (p99 from
    // delivery row to send 460-1,200 ms; 40-70 ms with 64). Failing endpoints get far fewer (failingPerEndpoint).
    this.perEndpoint = options.perEndpoint ?? 64;
    this.failingPerEndpoint = Math.min(options.failingPerEndpoint ?? 4, this.perEndpoint);
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.recordBatch = options.recordBatch ?? 200;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Deliveries became due now (fan-out, manual retry) or a slot freed: look at once instead of at the next poll. */
  nudge(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  /** A place for one new delivery to this endpoint, sent as soon as it is committed leased to `workerId`. */
  reserve(endpointId: string): DispatchSlot | null {
    if (this.stopped || this.backlog || this.waitingForClaim.has(endpointId)) return null;
    if (this.leased >= this.maxConcurrent) {
      this.backlog = true;
      return null;
    }
    if ((this.openPerEndpoint.get(endpointId) ?? 0) >= this.boundOf(endpointId)) {
      this.waitingForClaim.add(endpointId);
      return null;
    }
    this.hold(endpointId);
    this.reserved += 1;
    let used = false;
    return {
      send: (delivery, endpoint, stored) => {
        if (used) return;
        used = true;
        // Sent even when stopping meanwhile: the row is leased to this worker, and the stop waits for it.
        this.launch(delivery, endpoint, stored);
        this.reservationEnded();
      },
      release: () => {
        if (used) return;
        used = true;
        this.drop(endpointId);
        this.reservationEnded();
      },
    };
  }

  private reservationEnded(): void {
    this.reserved -= 1;
    if (this.reserved === 0) this.reservationsSettled?.();
  }

  private boundOf(endpointId: string): number {
    return this.failing.has(endpointId) ? this.failingPerEndpoint : this.perEndpoint;
  }

  /** Remembers whether the endpoint's latest attempt here failed; at most MAX_REMEMBERED_FAILING, the oldest forgotten. */
  private markOutcome(pending: PendingRecord): void {
    if (pending.kind !== 'sent') return;
    const endpointId = pending.delivery.state.endpointId;
    this.failing.delete(endpointId);
    if (attemptSucceeded(pending.result)) return;
    this.failing.add(endpointId);
    if (this.failing.size > MAX_REMEMBERED_FAILING) this.failing.delete(this.failing.values().next().value as string);
  }

  private hold(endpointId: string): void {
    this.leased += 1;
    this.openPerEndpoint.set(endpointId, (this.openPerEndpoint.get(endpointId) ?? 0) + 1);
  }

  /** The endpoint answered (or the attempt ended without a request): its slot frees, the lease stays until recorded. */
  private answered(endpointId: string): void {
    const left = (this.openPerEndpoint.get(endpointId) ?? 1) - 1;
    if (left > 0) this.openPerEndpoint.set(endpointId, left);
    else this.openPerEndpoint.delete(endpointId);
  }

  /** Attempts recorded (or with nothing to record): their process slots free, and more due work may be waiting. */
  private leasesEnded(count: number): void {
    this.leased -= count;
    this.nudge();
  }

  /** Gives up a held delivery that will not be recorded here (never sent, or failed unexpectedly). */
  private drop(endpointId: string): void {
    this.answered(endpointId);
    this.leased -= 1;
  }

  /**
   * Stops claiming and reserving, and waits for the handovers reserved before, then for every attempt in flight to be
   * sent and recorded. The caller bounds the wait (SHUTDOWN_GRACE_MS); an attempt cut then keeps its lease until it
   * expires, as when a worker dies.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.ticking;
    if (this.reserved > 0) await new Promise<void>((resolve) => (this.reservationsSettled = resolve));
    this.reservationsSettled = null;
    while (this.sending.size > 0) await Promise.allSettled([...this.sending]);
    while (this.recording) await this.recording;
  }

  get activeAttempts(): number {
    return this.leased;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    // Nudged from a fan-out or a recorded attempt, the timer would carry that event's trace into every later claim.
    this.timer = detached(() =>
      setTimeout(() => {
        this.timer = null;
        void this.tick();
      }, delayMs),
    );
  }

  private tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      // Yield first: if the body finished synchronously, `finally` would clear `ticking` before it is assigned.
      await Promise.resolve();
      try {
        do {
          this.again = false;
          const free = this.maxConcurrent - this.leased;
          if (free <= 0) break;
          const rows = await this.claim(free);
          const claimed = rows.map((row) => row.delivery);
          // A claim that got less than it asked for left nothing due behind.
          this.backlog = claimed.length === free;
          if (!this.backlog) this.waitingForClaim.clear();
          if (claimed.length === 0) continue;
          for (const delivery of claimed) this.hold(delivery.state.endpointId);
          let endpoints: Awaited<ReturnType<AttemptDelivery['endpointsOf']>>;
          try {
            endpoints = await this.attempt.endpointsOf(claimed);
          } catch (error) {
            for (const delivery of claimed) this.drop(delivery.state.endpointId); // the leases expire and they are claimed again
            throw error;
          }
          // A claimed delivery (a retry, or one left to the claim) continues its event's trace, like a handover does.
          for (const { delivery, traceparent } of rows) this.launch(delivery, endpoints.get(delivery.state.endpointId) ?? null, undefined, traceparent);
          if (claimed.length === free) this.again = true;
        } while (this.again && !this.stopped);
      } catch (error) {
        this.logger.warn({ err: error }, 'webhook dispatcher could not claim deliveries; will retry');
      } finally {
        this.ticking = null;
        this.schedule(this.pollIntervalMs);
      }
    })();
    return this.ticking;
  }

  /**
   * Sends a leased delivery; with `stored` (a handover sent while its row is inserted), records it only if stored.
   * `traceparent` is the event's (from its outbox row) for a claimed delivery; a handover has none and is launched in
   * the fan-out consumer's context: either way the delivery's span is a child of the event's trace.
   */
  private launch(delivery: WebhookDelivery, endpoint: WebhookEndpoint | null, stored?: Promise<boolean>, traceparent?: string | null): void {
    const attributes = { 'webhook.delivery.id': delivery.id, 'webhook.endpoint.id': delivery.state.endpointId };
    const run = inSpan('webhook.deliver', { kind: SpanKind.CLIENT, attributes, parent: contextOf(traceparent) }, () =>
      this.attempt.send(delivery, endpoint, this.options.workerId),
    )
      .then(
        async (pending) => {
          this.answered(delivery.state.endpointId);
          this.markOutcome(pending);
          this.options.onAttempt?.(pending);
          if (stored && !(await stored.catch(() => false))) {
            // No row of ours to record the attempt on (the delivery existed, or the insert failed and the event
            // comes again): the slot frees, nothing is written.
            this.leasesEnded(1);
            return;
          }
          this.toRecord.push(pending);
          this.flush();
        },
        (error) => {
          this.drop(delivery.state.endpointId);
          this.logger.error({ err: error, deliveryId: delivery.id }, 'webhook attempt failed unexpectedly; the lease will expire and it is retried');
        },
      )
      .finally(() => this.sending.delete(run));
    this.sending.add(run);
  }

  /** Records everything that finished, one transaction per batch; attempts finishing meanwhile join the next batch. */
  private flush(): void {
    if (this.recording) return;
    this.recording = (async () => {
      while (this.toRecord.length > 0) {
        const batch = this.toRecord.splice(0, this.recordBatch);
        try {
          await this.attempt.record(batch);
        } catch (error) {
          // One bad row must not cost the batch: record them one by one; what still fails keeps its lease
          // until it expires, and the delivery is attempted again then.
          this.logger.warn({ err: error, size: batch.length }, 'webhook attempt batch could not be recorded; recording one by one');
          for (const pending of batch) {
            await this.attempt.record([pending]).catch((single) =>
              this.logger.error({ err: single, deliveryId: pending.delivery.id }, 'webhook attempt could not be recorded; the lease will expire and it is retried'),
            );
          }
        } finally {
          this.leasesEnded(batch.length);
        }
      }
    })().finally(() => {
      this.recording = null;
      if (this.toRecord.length > 0) this.flush();
    });
  }

  private async claim(limit: number): Promise<Array<{ delivery: WebhookDelivery; traceparent: string | null }>> {
    const now = this.clock.now();
    const leaseUntil = new Date(now.getTime() + this.options.leaseMs);
    const em = this.orm.em.fork({ useContext: false });
    // Loose index scan over endpoints with queued work, then per endpoint its earliest due unleased
    // deliveries up to the endpoint's free slots; the overall earliest of those are leased.
    // With tracing on, each claimed row also brings its event's traceparent (a primary-key lookup in the same
    // statement, no round trip); off, the lookup is left out and a claim costs what it did.
    const traceparent = tracingRequestedOrStarted() ? '(select e.traceparent from events e where e.id = webhook_deliveries.event_id)' : 'null::text';
    const rows = await em.execute<Array<DeliveryRow & { traceparent: string | null }>>(
      `with recursive queued_endpoints as (
         (select endpoint_id from webhook_deliveries where status in ('pending', 'failed') order by endpoint_id limit 1)
         union all
         select (select d.endpoint_id from webhook_deliveries d
                  where d.status in ('pending', 'failed') and d.endpoint_id > q.endpoint_id order by d.endpoint_id limit 1)
           from queued_endpoints q where q.endpoint_id is not null
       ), candidates as (
         select c.id, c.next_retry_at
           from queued_endpoints q
           cross join lateral (
             select count(*)::int4 as n from webhook_deliveries l
              where l.endpoint_id = q.endpoint_id and l.lease_until is not null and l.lease_until > ? and l.status in ('pending', 'failed')
           ) busy
           cross join lateral (
             select d.id, d.next_retry_at from webhook_deliveries d
              where d.endpoint_id = q.endpoint_id and d.status in ('pending', 'failed') and d.next_retry_at <= ?
                and (d.lease_until is null or d.lease_until <= ?)
              order by d.next_retry_at
              limit greatest(case when q.endpoint_id in (select jsonb_array_elements_text(?::jsonb)) then ? else ? end - busy.n, 0)
           ) c
          where q.endpoint_id is not null
       )
       update webhook_deliveries set lease_owner = ?, lease_until = ?
        where id in (
          select d.id from webhook_deliveries d
           where d.id in (select id from candidates order by next_retry_at limit ?)
             and d.status in ('pending', 'failed') and (d.lease_until is null or d.lease_until <= ?)
           for update skip locked)
       returning ${DELIVERY_COLUMNS}, ${traceparent} as traceparent`,
      [now, now, now, JSON.stringify([...this.failing]), this.failingPerEndpoint, this.perEndpoint, this.options.workerId, leaseUntil, limit, now],
    );
    return rows.map((row) => ({ delivery: deliveryFromRow(row), traceparent: row.traceparent }));
  }
}
