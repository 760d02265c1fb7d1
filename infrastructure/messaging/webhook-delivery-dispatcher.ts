/**
 * Sends due webhook deliveries. Polls `next_retry_at <= now` and claims rows with a lease in one autocommitted
 * statement (FOR UPDATE SKIP LOCKED), so several workers share the work without ever sending the same
 * delivery at the same time; a killed worker's leases expire and another worker takes the deliveries over.
 *
 * Concurrency is per delivery and bounded twice: `maxConcurrent` in flight per process, and at most
 * `perEndpoint` leased deliveries per endpoint across all workers, so one slow endpoint (10 s timeouts)
 * can never occupy every slot and delay the others.
 */
import type { AttemptDelivery } from '../../application/webhook/attempt-delivery';
import type { Clock } from '../../domain/ports/clock';
import type { Logger } from '../logging/logger';
import type { Orm } from '../persistence/orm';

export interface DispatcherOptions {
  /** Identifies this worker's leases. */
  readonly workerId: string;
  readonly maxConcurrent?: number;
  readonly perEndpoint?: number;
  readonly pollIntervalMs?: number;
  /** Must exceed the HTTP timeout: a lease that expires mid-attempt lets another worker send a duplicate. */
  readonly leaseMs: number;
}

export class WebhookDeliveryDispatcher {
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private readonly maxConcurrent: number;
  private readonly perEndpoint: number;
  private readonly pollIntervalMs: number;

  constructor(
    private readonly orm: Orm,
    private readonly attempt: AttemptDelivery,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: DispatcherOptions,
  ) {
    this.maxConcurrent = options.maxConcurrent ?? 32;
    this.perEndpoint = options.perEndpoint ?? 4;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Deliveries became due now (fan-out, manual retry): look at once instead of at the next poll. */
  nudge(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  /** Stops claiming and waits for the attempts in flight to be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.ticking;
    await Promise.allSettled([...this.inFlight]);
  }

  get activeAttempts(): number {
    return this.inFlight.size;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.tick();
    }, delayMs);
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
          const free = this.maxConcurrent - this.inFlight.size;
          if (free <= 0) break;
          const claimed = await this.claim(free);
          for (const id of claimed) this.launch(id);
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

  private launch(deliveryId: string): void {
    const run = this.attempt
      .execute(deliveryId, this.options.workerId)
      .then(() => undefined)
      .catch((error) => this.logger.error({ err: error, deliveryId }, 'webhook attempt could not be recorded; the lease will expire and it is retried'))
      .finally(() => {
        this.inFlight.delete(run);
        // A slot freed: more due work may be waiting.
        this.nudge();
      });
    this.inFlight.add(run);
  }

  private async claim(limit: number): Promise<string[]> {
    const now = this.clock.now();
    const leaseUntil = new Date(now.getTime() + this.options.leaseMs);
    const em = this.orm.em.fork({ useContext: false });
    // Loose index scan over endpoints with queued work, then per endpoint its earliest due unleased
    // deliveries up to the endpoint's free slots; the overall earliest of those are leased.
    const rows = await em.execute<Array<{ id: string }>>(
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
              order by d.next_retry_at limit greatest(? - busy.n, 0)
           ) c
          where q.endpoint_id is not null
       )
       update webhook_deliveries set lease_owner = ?, lease_until = ?
        where id in (
          select d.id from webhook_deliveries d
           where d.id in (select id from candidates order by next_retry_at limit ?)
             and d.status in ('pending', 'failed') and (d.lease_until is null or d.lease_until <= ?)
           for update skip locked)
       returning id`,
      [now, now, now, this.perEndpoint, this.options.workerId, leaseUntil, limit, now],
    );
    return rows.map((row) => row.id);
  }
}
