import type { Environment, TenantScope } from '../shared/environment';
import type { Transaction } from './transactor';

/** The payload contract version carried in every event (apiVersion) and the Service-Version header. */
export const API_VERSION = '2026-01-01';

/** An event a use case wants emitted; the outbox gives it an id, a sequence and a timestamp. */
export interface NewEvent {
  readonly type: string;
  readonly scope: TenantScope;
  readonly object: { readonly object: string; readonly id: string; readonly [field: string]: unknown };
  readonly previousAttributes?: Record<string, unknown> | null;
}

/** The envelope exactly as webhooks and the event log show it (interface-spec: Event). */
export interface EventEnvelope {
  readonly id: string;
  readonly type: string;
  readonly apiVersion: string;
  readonly createdAt: string;
  readonly environment: Environment;
  readonly sequence: number;
  readonly data: { readonly object: Record<string, unknown>; readonly previousAttributes: Record<string, unknown> | null };
}

/** A stored event: the envelope plus the tenant it belongs to (never shown to clients). */
export interface StoredEvent extends EventEnvelope {
  readonly organizationId: string;
}

/** An event just written: its sequence is assigned when the relay numbers it, unless asked for at once. */
export interface AppendedEvent extends Omit<StoredEvent, 'sequence'> {
  readonly sequence: number | null;
}

/**
 * Transactional outbox: events are written in the same transaction as the state change that causes them.
 * The per-organization monotonic sequence is given by the relay, in batches, so concurrent transactions of
 * one busy organization never queue on its counter; a caller that must show the sequence at once (a test
 * delivery) asks for `assignSequence`, which takes the counter in its own transaction. A relay publishes
 * committed events; nothing is lost if the process dies in between, because it resumes from what is
 * still unpublished.
 */
export interface EventOutbox {
  append(tx: Transaction, events: readonly NewEvent[]): Promise<AppendedEvent[]>;
  append(tx: Transaction, events: readonly NewEvent[], options: { assignSequence: true }): Promise<StoredEvent[]>;
}
