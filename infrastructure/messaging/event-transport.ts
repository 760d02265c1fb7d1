import type { StoredEvent } from '../../domain/ports/event-outbox';

/** How a consumer learns a message is a redelivery (it may have been handled before). */
export interface DeliveryInfo {
  readonly redelivered: boolean;
  readonly deliveryCount: number;
}

/** Resolving acknowledges the message; throwing asks for it again later (at-least-once). */
export type EventHandler = (event: StoredEvent, delivery: DeliveryInfo) => Promise<void>;

export interface ConsumerOptions {
  /** Explicit durable name: a restarted consumer resumes where its predecessor acknowledged. */
  readonly durableName: string;
  /** Event types to receive (exact); all when omitted. */
  readonly types?: readonly string[];
  /** Messages handled at once by this consumer. */
  readonly concurrency?: number;
  /** Delay before a failed message is offered again. */
  readonly retryDelayMs?: number;
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

/**
 * The event stream between the outbox relay and the consumers. JetStream in distributed mode, an
 * in-process queue in embedded mode; both deduplicate publishes by event id and redeliver until acked.
 */
export interface EventTransport {
  /** Resolves once the stream has durably accepted the event (a duplicate id is accepted and dropped). */
  publish(event: StoredEvent): Promise<void>;
  consume(options: ConsumerOptions, handler: EventHandler): Promise<RunningConsumer>;
  /** False, and quickly, while the stream cannot be reached (publishes then fail and wait in the outbox). */
  healthy(): Promise<boolean>;
  /**
   * Calls `listener` each time the stream is reachable again after an outage, so a publisher waiting out a back-off
   * resumes at once instead of at its next try. Returns the function that removes the listener.
   */
  onReachableAgain(listener: () => void): () => void;
  /** The durable consumers' backlog, for metrics (absent on a transport without durable consumers of its own). */
  consumerBacklog?(): Promise<Array<{ consumer: string; pending: number; ackPending: number }>>;
  close(): Promise<void>;
}

export function subjectFor(prefix: string, event: Pick<StoredEvent, 'environment' | 'organizationId' | 'type'>): string {
  return `${prefix}.${event.environment}.${event.organizationId}.${event.type}`;
}
