import type { TenantScope } from '../shared/environment';

/**
 * Data a process keeps in memory between requests, by topic. A change is announced in the transaction that
 * makes it (so it is announced only if it commits) and reaches every process of the installation.
 * - `api_keys`: key = the API key's id (announced when it is revoked).
 * - `connector_accounts`: key = `tenantChangeKey(scope)` (announced when an account is added or changed).
 * - `webhook_endpoints`: key = `tenantChangeKey(scope)` (announced when an endpoint is added, changed, deleted
 *   or switched off by its failures; not for the health counters of an endpoint that keeps receiving).
 * - `flows`: key = `tenantChangeKey(scope)` (announced when a flow is published or unpublished).
 * - `organizations`: key = the organization's id (announced when its name changes; the checkout shows that name).
 */
export const CHANGE_TOPICS = ['api_keys', 'connector_accounts', 'webhook_endpoints', 'flows', 'organizations'] as const;
export type ChangeTopic = (typeof CHANGE_TOPICS)[number];

/** The change key of data kept per tenant: what the writer announces and the reader remembers under. */
export function tenantChangeKey(scope: TenantScope): string {
  return `${scope.organizationId}:${scope.environment}`;
}

export interface ChangeListener {
  /** A change of this key committed (in this process or another). */
  onChange(key: string): void;
  /** Changes may have been missed (the feed lost and regained its connection): forget everything. */
  onReset(): void;
}

/** Tells a process when data it may hold in memory changed. */
export interface ChangeFeed {
  subscribe(topic: ChangeTopic, listener: ChangeListener): void;
  /** True while every committed change reaches this process; memory may serve reads only then. */
  readonly live: boolean;
}
