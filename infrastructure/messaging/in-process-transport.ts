/**
 * Embedded mode's event stream: the same contract as JetStream inside one process. A publish is
 * deduplicated by event id and resolves only when every consumer has acknowledged the event, so the
 * relay marks an event published only after it was handled; until then it stays in the outbox and
 * survives a crash. A handler that throws gets the event again after a delay (at-least-once).
 */
import type { StoredEvent } from '../../domain/ports/event-outbox';
import type { Logger } from '../logging/logger';
import { contextOf, currentTraceparent, inSpan, SpanKind } from '../tracing/tracing';
import type { ConsumerOptions, EventHandler, EventTransport, RunningConsumer } from './event-transport';

const DUPLICATE_WINDOW_MS = 2 * 60_000;

interface Subscriber {
  readonly options: ConsumerOptions;
  readonly handler: EventHandler;
  running: boolean;
  active: number;
  readonly waiting: Array<() => void>;
}

export class InProcessTransport implements EventTransport {
  private readonly subscribers = new Map<string, Subscriber>();
  private readonly recent = new Map<string, { at: number; done: Promise<void> }>();
  private closed = false;

  constructor(private readonly logger: Logger) {}

  /** In-process, the stream is never out of reach. */
  onReachableAgain(): () => void {
    return () => undefined;
  }

  publish(event: StoredEvent): Promise<void> {
    if (this.closed) return Promise.reject(new Error('event transport is closed'));
    this.forgetOldPublishes();
    const seen = this.recent.get(event.id);
    if (seen) return seen.done;
    // What a NATS message header carries in distributed mode: the publisher's trace, continued by each consumer.
    const traceparent = currentTraceparent();
    const done = Promise.all(
      [...this.subscribers.values()]
        .filter((subscriber) => !subscriber.options.types || subscriber.options.types.includes(event.type))
        .map((subscriber) => this.deliver(subscriber, event, traceparent)),
    ).then(() => undefined);
    this.recent.set(event.id, { at: Date.now(), done });
    return done;
  }

  private async deliver(subscriber: Subscriber, event: StoredEvent, traceparent: string | undefined): Promise<void> {
    let deliveryCount = 0;
    for (;;) {
      if (!subscriber.running || this.closed) throw new Error(`consumer ${subscriber.options.durableName} stopped`);
      await this.acquire(subscriber);
      deliveryCount += 1;
      try {
        // A structured clone keeps consumers from sharing (and mutating) one object, as a wire would.
        const info = { redelivered: deliveryCount > 1, deliveryCount: deliveryCount - 1 };
        await inSpan(`consume ${event.type}`, { kind: SpanKind.CONSUMER, parent: contextOf(traceparent), attributes: consumerSpanAttributes(subscriber.options.durableName, event) }, () =>
          subscriber.handler(structuredClone(event), info),
        );
        return;
      } catch (error) {
        this.logger.warn({ err: error, consumer: subscriber.options.durableName }, 'event handler failed; redelivering');
      } finally {
        this.release(subscriber);
      }
      await new Promise((resolve) => setTimeout(resolve, subscriber.options.retryDelayMs ?? 1_000));
    }
  }

  private acquire(subscriber: Subscriber): Promise<void> {
    const limit = subscriber.options.concurrency ?? 16;
    if (subscriber.active < limit) {
      subscriber.active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => subscriber.waiting.push(() => { subscriber.active += 1; resolve(); }));
  }

  private release(subscriber: Subscriber): void {
    subscriber.active -= 1;
    subscriber.waiting.shift()?.();
  }

  private forgetOldPublishes(): void {
    const horizon = Date.now() - DUPLICATE_WINDOW_MS;
    for (const [id, entry] of this.recent) {
      if (entry.at >= horizon) break;
      this.recent.delete(id);
    }
  }

  async consume(options: ConsumerOptions, handler: EventHandler): Promise<RunningConsumer> {
    const subscriber: Subscriber = { options, handler, running: true, active: 0, waiting: [] };
    this.subscribers.set(options.durableName, subscriber);
    return {
      stop: async () => {
        subscriber.running = false;
        this.subscribers.delete(options.durableName);
      },
    };
  }

  async healthy(): Promise<boolean> {
    return !this.closed;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** Bounded attributes of a consumer span (the event id identifies the message, as NATS's message id does). */
export function consumerSpanAttributes(consumer: string, event: Pick<StoredEvent, 'id' | 'type'>): Record<string, string> {
  return { 'messaging.consumer.group.name': consumer, 'messaging.message.id': event.id, 'event.type': event.type };
}
