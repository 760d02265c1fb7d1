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
  /** Live endpoints of these tenants that currently receive deliveries (active or failing). */
  listReceiving(tx: Transaction, scopes: readonly TenantScope[]): Promise<WebhookEndpoint[]>;
  /** By ids (workers); `forUpdate` locks the rows in id order, so batches of several workers never deadlock. */
  findByIds(tx: Transaction, ids: readonly string[], options?: { forUpdate?: boolean }): Promise<WebhookEndpoint[]>;
  /** Writes the health columns (status, failure count, reason, last attempt/success) of endpoints the caller locked. */
  recordHealth(tx: Transaction, endpoints: readonly WebhookEndpoint[]): Promise<void>;
}

export interface NewAttemptRecord {
  readonly delivery: WebhookDelivery;
  readonly attempt: DeliveryAttempt;
}

/** What one recorded attempt writes to its delivery row. */
export interface DeliveryOutcomeWrite {
  /** The state to store, computed from the row as it was claimed. */
  readonly delivery: WebhookDelivery;
  /**
   * Store the state only if the row is still queued with `expectedAttempts` attempts (when given), i.e. no manual
   * retry, cancel or other worker moved it meanwhile; checked by the write itself. False: only the lease goes.
   */
  readonly moveState: boolean;
  readonly expectedAttempts?: number;
  /** Request headers as sent (masked); undefined keeps the stored ones. */
  readonly requestHeaders?: Record<string, string> | null;
  /** The lease to release when this worker still holds it. */
  readonly leaseOwner: string;
}

/** Persistence of deliveries and their attempts. */
export interface WebhookDeliveryRepository {
  /** Inserts those without a delivery for their (event, endpoint) yet (leased when given), in one statement; returns the new ids. */
  insertManyIfAbsent(tx: Transaction, rows: ReadonlyArray<{ delivery: WebhookDelivery; lease?: { owner: string; until: Date } }>): Promise<string[]>;
  /** Inserts unless a delivery for (event, endpoint) exists; true when inserted (fan-out idempotency). */
  insertIfAbsent(tx: Transaction, delivery: WebhookDelivery, lease?: { owner: string; until: Date }): Promise<boolean>;
  update(tx: Transaction, delivery: WebhookDelivery, requestHeaders?: Record<string, string> | null): Promise<void>;
  find(tx: Transaction, scope: TenantScope, endpointId: string, id: string, options?: { forUpdate?: boolean }): Promise<WebhookDelivery | null>;
  findById(tx: Transaction, id: string, options?: { forUpdate?: boolean }): Promise<WebhookDelivery | null>;
  /** By ids, without their attempt log; `forUpdate` locks them in id order. */
  findByIds(tx: Transaction, ids: readonly string[], options?: { forUpdate?: boolean }): Promise<WebhookDelivery[]>;
  /** Records a batch of attempts: delivery states, attempt rows and lease releases, in a few multi-row statements. */
  recordOutcomes(tx: Transaction, writes: readonly DeliveryOutcomeWrite[], attempts: readonly NewAttemptRecord[]): Promise<void>;
  /** Marks every queued (pending or failed) delivery of the endpoint disabled; returns how many. */
  cancelQueued(tx: Transaction, endpointId: string, now: Date): Promise<number>;
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
