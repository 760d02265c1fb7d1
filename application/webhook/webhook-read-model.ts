import type { Environment, TenantScope } from '../../domain/shared/environment';
import type { DeliveryAttempt, StoredResponse } from '../../domain/webhook/webhook-delivery';
import type { DeliveryStatus } from '../../domain/webhook/webhook-delivery.transitions';

/**
 * The read side of webhooks and the event log: lists, details, statistics and summaries the dashboard and the API
 * show. The write side goes through the repositories and the aggregates; these reads return plain records, so the
 * edge never sees how they are stored. Every read is scoped by organization and environment (statistics by
 * endpoints the caller has already loaded in its scope).
 */
export interface WebhookReadModel {
  /** Last 24 hours of each endpoint's attempts (test deliveries excluded), keyed by endpoint id; every id has an entry. */
  endpointStatistics(endpointIds: readonly string[], now: Date): Promise<Map<string, EndpointStatistics>>;
  /** Endpoint counts by status and deliveries of the last 24 hours against the 24 before. */
  summary(scope: TenantScope, now: Date): Promise<WebhookSummary>;
  /** Deliveries of one endpoint, newest first; `limit + 1` records, the extra one only saying that more exist. */
  listDeliveries(scope: TenantScope, endpointId: string, query: DeliveryListQuery): Promise<DeliveryRecord[]>;
  /** One delivery with every attempt, and its endpoint's URL (null once the endpoint row is gone). */
  delivery(scope: TenantScope, endpointId: string, id: string): Promise<DeliveryDetail | null>;
  /** Numbered events, newest first by sequence; `limit + 1` records; null when `startingAfter` names no event. */
  listEvents(scope: TenantScope, query: EventListQuery): Promise<EventRecord[] | null>;
  /** One numbered event (an event shows once the relay has numbered it, milliseconds after commit). */
  event(scope: TenantScope, id: string): Promise<EventRecord | null>;
  /** Delivery counts by status per event (total, pending, succeeded, failed, exhausted, disabled); every id has an entry. */
  deliverySummaries(scope: TenantScope, eventIds: readonly string[]): Promise<Map<string, Record<string, number>>>;
  /** Every delivery of an event with its endpoint, removed endpoints included. */
  eventDeliveries(scope: TenantScope, eventId: string): Promise<EventDeliveryRecord[]>;
}

export interface DeliveryListQuery {
  readonly statuses?: readonly DeliveryStatus[];
  /** An exact type, a `group.*` wildcard or `*`. */
  readonly eventType?: string;
  readonly createdFrom?: Date;
  readonly createdTo?: Date;
  /** A delivery id or an event id. */
  readonly search?: string;
  readonly limit: number;
  readonly startingAfter?: string;
}

export interface EventListQuery {
  /** An exact type, a `group.*` wildcard or `*`. */
  readonly type?: string;
  readonly objectType?: string;
  readonly objectId?: string;
  readonly createdFrom?: Date;
  readonly createdTo?: Date;
  /** An event id or an object id. */
  readonly search?: string;
  readonly limit: number;
  readonly startingAfter?: string;
}

/** A delivery as recorded, with the request headers as sent (extra header values masked, no signature). */
export interface DeliveryRecord {
  readonly id: string;
  readonly endpointId: string;
  readonly eventId: string;
  readonly eventType: string;
  /** The exact signed body, as UTF-8 text. */
  readonly body: string;
  readonly requestHeaders: Record<string, string> | null;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly nextRetryAt: Date | null;
  readonly lastResponse: StoredResponse | null;
  readonly isTest: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface DeliveryDetail {
  readonly delivery: DeliveryRecord;
  readonly attempts: readonly DeliveryAttempt[];
  readonly url: string | null;
}

/** A delivery of an event, with the endpoint it went to. */
export interface EventDeliveryRecord extends DeliveryRecord {
  readonly endpointUrl: string;
  readonly endpointDeleted: boolean;
}

export interface EventRecord {
  readonly id: string;
  readonly type: string;
  readonly apiVersion: string;
  readonly createdAt: Date;
  readonly environment: Environment;
  readonly sequence: number;
  readonly data: { object: Record<string, unknown>; previousAttributes: Record<string, unknown> | null };
}

export interface EndpointStatistics {
  readonly windowHours: 24;
  readonly attempts: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly successRate: number | null;
  readonly averageResponseMs: number | null;
  readonly p95ResponseMs: number | null;
  readonly deliveriesPerHour: Array<{ hour: string; attempts: number; succeeded: number }>;
  readonly lastDelivery: {
    deliveryId: string;
    eventId: string;
    eventType: string;
    attemptedAt: string;
    responseStatus: number | null;
    succeeded: boolean;
    durationMs: number;
  } | null;
}

/** Deliveries of one 24-hour window (test deliveries excluded). */
export interface DeliveryWindow {
  readonly deliveries: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly exhausted: number;
  readonly successRate: number | null;
}

/** The environment's webhook health at a glance (GET /v1/webhooks/summary). */
export interface WebhookSummary {
  readonly endpoints: {
    readonly total: number;
    readonly active: number;
    readonly failing: number;
    readonly switchedOff: number;
    readonly disabled: number;
    readonly autoDisabled: number;
  };
  readonly last24Hours: DeliveryWindow;
  readonly previous24Hours: DeliveryWindow;
  readonly change: { readonly deliveries: number; readonly successRate: number | null };
}
