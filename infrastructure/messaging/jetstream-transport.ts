/**
 * The event stream on NATS JetStream: one stream holding `<prefix>.<environment>.<organization>.<type>`,
 * publishes deduplicated by `Nats-Msg-Id` (the event id), durable consumers with explicit acknowledgement.
 */
import {
  AckPolicy,
  DeliverPolicy,
  Events,
  RetentionPolicy,
  StorageType,
  connect,
  headers as natsHeaders,
  nanos,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type NatsConnection,
} from 'nats';
import type { StoredEvent } from '../../domain/ports/event-outbox';
import type { Logger } from '../logging/logger';
import { contextOf, currentTraceparent, inSpan, SpanKind } from '../tracing/tracing';
import { consumerSpanAttributes } from './in-process-transport';
import { subjectFor, type ConsumerOptions, type EventHandler, type EventTransport, type RunningConsumer } from './event-transport';

const DUPLICATE_WINDOW_MS = 2 * 60_000;
const PUBLISH_TIMEOUT_MS = 5_000;
/**
 * While the connection is down the client only buffers a publish, and its acknowledgement cannot come: waiting the
 * full timeout held each relay try for 5 s. A short wait still lets a reconnect within it succeed (the buffered
 * publish goes out on reconnect); otherwise the event waits in the outbox and the relay resumes on reconnect.
 */
const UNREACHABLE_PUBLISH_TIMEOUT_MS = 1_000;
const ACK_WAIT_MS = 30_000;

export interface JetStreamSettings {
  readonly url: string;
  readonly stream: string;
  readonly subjectPrefix: string;
  /** Redelivery delay of an unacknowledged message (default 30 s). */
  readonly ackWaitMs?: number;
}

export class JetStreamTransport implements EventTransport {
  /** False from a disconnect until the client has reconnected (it retries by itself every reconnectTimeWait). */
  private reachable = true;
  private readonly reachableAgainListeners = new Set<() => void>();

  private constructor(
    private readonly connection: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly settings: JetStreamSettings,
    private readonly logger: Logger,
  ) {
    void this.followConnectionStatus().catch((error: unknown) => this.logger.warn({ err: error }, 'stopped following the NATS connection status'));
  }

  /** Ends when the connection closes (the client then ends its status iterator). */
  private async followConnectionStatus(): Promise<void> {
    for await (const status of this.connection.status()) {
      if (status.type === Events.Disconnect) {
        this.reachable = false;
        this.logger.warn({ stream: this.settings.stream }, 'NATS connection lost; events wait in the outbox until it is back');
      } else if (status.type === Events.Reconnect) {
        this.reachable = true;
        this.logger.info({ stream: this.settings.stream }, 'NATS connection back');
        for (const listener of this.reachableAgainListeners) listener();
      }
    }
  }

  onReachableAgain(listener: () => void): () => void {
    this.reachableAgainListeners.add(listener);
    return () => this.reachableAgainListeners.delete(listener);
  }

  static async connect(settings: JetStreamSettings, logger: Logger): Promise<JetStreamTransport> {
    const connection = await connect({
      servers: settings.url,
      name: 'payment-orchestration',
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      timeout: 5_000,
      // Without this the client builds an Error (a stack capture) for every request, i.e. every JetStream publish and
      // its ack timer, only to improve the trace of a timeout: measured at about 1 % of the service's CPU.
      noAsyncTraces: true,
    });
    const jsm = await connection.jetstreamManager();
    const transport = new JetStreamTransport(connection, connection.jetstream(), jsm, settings, logger);
    await transport.ensureStream();
    return transport;
  }

  private async ensureStream(): Promise<void> {
    const config = {
      name: this.settings.stream,
      subjects: [`${this.settings.subjectPrefix}.>`],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
      max_age: nanos(7 * 24 * 3600 * 1000),
    };
    try {
      await this.jsm.streams.info(this.settings.stream);
      await this.jsm.streams.update(this.settings.stream, config);
    } catch (error) {
      if (!String((error as Error).message).includes('not found')) throw error;
      await this.jsm.streams.add(config);
    }
  }

  async publish(event: StoredEvent): Promise<void> {
    const subject = subjectFor(this.settings.subjectPrefix, event);
    // The relay's publish span travels in the message's headers (W3C traceparent), for the consumers to continue.
    const traceparent = currentTraceparent();
    const trace = traceparent ? natsHeaders() : undefined;
    trace?.set('traceparent', traceparent!);
    await this.js.publish(subject, Buffer.from(JSON.stringify(event)), {
      msgID: event.id,
      ...(trace ? { headers: trace } : {}),
      timeout: this.reachable ? PUBLISH_TIMEOUT_MS : UNREACHABLE_PUBLISH_TIMEOUT_MS,
    });
  }

  async consume(options: ConsumerOptions, handler: EventHandler): Promise<RunningConsumer> {
    const types = options.types ? new Set(options.types) : null;
    const filterSubject =
      options.types && options.types.length === 1
        ? `${this.settings.subjectPrefix}.*.*.${options.types[0]}`
        : `${this.settings.subjectPrefix}.>`;
    const concurrency = options.concurrency ?? 16;
    await this.jsm.consumers.add(this.settings.stream, {
      durable_name: options.durableName,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(this.settings.ackWaitMs ?? ACK_WAIT_MS),
      max_ack_pending: Math.max(concurrency * 4, 64),
      filter_subject: filterSubject,
    });
    const consumer = await this.js.consumers.get(this.settings.stream, options.durableName);
    const messages: ConsumerMessages = await consumer.consume({ max_messages: concurrency * 2 });
    const inFlight = new Set<Promise<void>>();
    const retryDelayMs = options.retryDelayMs ?? 1_000;
    const acks = new AckBatch();
    let stopping = false;

    const loop = (async () => {
      for await (const message of messages) {
        if (stopping) {
          // Pulled but not started when the drain began: handed back for another consumer at once, not after ack_wait.
          message.nak();
          continue;
        }
        const work = (async () => {
          try {
            const event = JSON.parse(Buffer.from(message.data).toString('utf8')) as StoredEvent;
            if (!types || types.has(event.type)) {
              const parent = contextOf(message.headers?.get('traceparent'));
              await inSpan(`consume ${event.type}`, { kind: SpanKind.CONSUMER, parent, attributes: consumerSpanAttributes(options.durableName, event) }, () =>
                handler(event, { redelivered: message.info.redelivered, deliveryCount: message.info.redeliveryCount }),
              );
            }
            acks.add(message);
          } catch (error) {
            this.logger.warn({ err: error, consumer: options.durableName }, 'event handler failed; message will be redelivered');
            message.nak(retryDelayMs);
          }
        })();
        inFlight.add(work);
        void work.finally(() => inFlight.delete(work));
        if (inFlight.size >= concurrency) await Promise.race(inFlight);
      }
    })();

    return {
      // The drain (contract.md 8): take nothing new, finish and acknowledge the messages being handled.
      stop: async () => {
        stopping = true;
        messages.stop();
        await loop.catch(() => undefined);
        await Promise.allSettled([...inFlight]);
        acks.flush();
      },
    };
  }

  async healthy(): Promise<boolean> {
    if (this.connection.isClosed() || !this.reachable) return false;
    try {
      await Promise.race([
        this.connection.rtt(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('nats rtt timeout')), 1_000)),
      ]);
      return true;
    } catch {
      return false;
    }
  }

  async consumerBacklog(): Promise<Array<{ consumer: string; pending: number; ackPending: number }>> {
    const consumers = await this.jsm.consumers.list(this.settings.stream).next();
    return consumers.map((info) => ({ consumer: info.name, pending: info.num_pending, ackPending: info.num_ack_pending }));
  }

  /** Deletes the stream; tests use it to leave nothing behind. */
  async deleteStream(): Promise<void> {
    await this.jsm.streams.delete(this.settings.stream).catch(() => undefined);
  }

  async close(): Promise<void> {
    if (!this.connection.isClosed()) await this.connection.drain().catch(() => this.connection.close());
  }
}

/**
 * Acks of one turn of the event loop, sent together. nats.js writes what is queued on the next microtask, which each
 * handler's continuation misses: one socket write per message, each waking the server (on loopback a write costs the
 * sender the receiver's wake-up too). Sent at `setImmediate`, the acks of a batch of handled messages go in one
 * write. A process that dies first leaves them unacked: the stream redelivers, and consumers deduplicate.
 */
class AckBatch {
  private readonly pending: JsMsg[] = [];

  add(message: JsMsg): void {
    this.pending.push(message);
    if (this.pending.length === 1) setImmediate(() => this.flush());
  }

  flush(): void {
    for (const message of this.pending.splice(0)) message.ack();
  }
}
