import type { TenantScope } from '../shared/environment';
import type { Transaction } from './transactor';
import type { WebhookEndpoint } from '../webhook/webhook-endpoint';
import type { DeliveryAttempt, WebhookDelivery } from '../webhook/webhook-delivery';
import type { DeliveryStatus } from '../webhook/webhook-delivery.transitions';

/** Persistence of webhook endpoints. Every read is scoped by organization and environment. */
export interface WebhookEndpointRepository {
  /** Throws DomainError `webhook_url_taken` when the URL is already registered in the environment. */
  insert(tx: Transaction, endpoint: WebhookEndpoint): Promise<void>;
  update(tx: Transaction, endpoint: WebhookEndpoint): Promise<void>;
  /** Live (not deleted) endpoint of the tenant; `forUpdate` locks the row until commit. */
  find(tx: Transaction, scope: TenantScope, id: string, options?: { forUpdate?: boolean; includeDeleted?: boolean }): Promise<WebhookEndpoint | null>;
  /** By id only, for workers (the delivery row carries the tenant). */
  findById(tx: Transaction, id: string, options?: { forUpdate?: boolean }): Promise<WebhookEndpoint | null>;
  list(tx: Transaction, scope: TenantScope): Promise<WebhookEndpoint[]>;
  /** Live endpoints of the tenant; locks the tenant's endpoint count so concurrent creations cannot pass the limit. */
  countForUpdate(tx: Transaction, scope: TenantScope): Promise<number>;
  /** Live endpoints that currently receive deliveries (active or failing). */
  listReceiving(tx: Transaction, scope: TenantScope): Promise<WebhookEndpoint[]>;
}

export interface NewAttemptRecord {
  readonly delivery: WebhookDelivery;
  readonly attempt: DeliveryAttempt;
}

/** Persistence of deliveries and their attempts. */
export interface WebhookDeliveryRepository {
  /** Inserts unless a delivery for (event, endpoint) exists; true when inserted (fan-out idempotency). */
  insertIfAbsent(tx: Transaction, delivery: WebhookDelivery, lease?: { owner: string; until: Date }): Promise<boolean>;
  update(tx: Transaction, delivery: WebhookDelivery, requestHeaders?: Record<string, string> | null): Promise<void>;
  appendAttempt(tx: Transaction, record: NewAttemptRecord): Promise<void>;
  find(tx: Transaction, scope: TenantScope, endpointId: string, id: string, options?: { forUpdate?: boolean }): Promise<WebhookDelivery | null>;
  findById(tx: Transaction, id: string, options?: { forUpdate?: boolean }): Promise<WebhookDelivery | null>;
  /** Marks every queued (pending or failed) delivery of the endpoint disabled; returns how many. */
  cancelQueued(tx: Transaction, endpointId: string, now: Date): Promise<number>;
  /** Releases the lease a worker held (after its attempt was recorded). */
  releaseLease(tx: Transaction, id: string, owner: string): Promise<void>;
}

export interface DeliveryQuery {
  readonly statuses?: readonly DeliveryStatus[];
  readonly eventType?: string;
  readonly createdFrom?: Date;
  readonly createdTo?: Date;
  readonly search?: string;
  readonly limit: number;
  readonly startingAfter?: string;
}
