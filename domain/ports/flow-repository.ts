import type { Flow } from '../flow/flow';
import type { AccountFacts } from '../flow/publish-check';
import type { FlowGraph, FlowTriggerEvent } from '../flow/flow-graph';
import type { TenantScope } from '../shared/environment';
import type { Transaction } from './transactor';

/** A connector account a graph names, as publishing reads it: its kind and its connector (whose adapter says what it can do). */
export interface HeldAccount {
  readonly kind: AccountFacts['kind'];
  readonly connectorSlug: string;
}

/** One published version of a flow: immutable once stored. */
export interface FlowVersion {
  readonly flowId: string;
  readonly version: number;
  readonly triggerEvent: FlowTriggerEvent;
  readonly graph: FlowGraph;
  /** The connector accounts the graph names (what usedByFlows searches). */
  readonly accountIds: readonly string[];
  readonly publishedAt: string;
}

/** The graph a payment runs: a published flow's version in force. */
export interface PublishedFlow {
  readonly flowId: string;
  readonly name: string;
  readonly version: number;
  readonly graph: FlowGraph;
}

export interface FlowListQuery {
  readonly limit: number;
  readonly startingAfter?: string;
  readonly status?: 'draft' | 'published';
  readonly triggerEvent?: FlowTriggerEvent;
}

export interface FlowRepository {
  insert(tx: Transaction, flow: Flow): Promise<void>;
  update(tx: Transaction, flow: Flow): Promise<void>;
  delete(tx: Transaction, scope: TenantScope, id: string): Promise<void>;
  find(tx: Transaction, scope: TenantScope, id: string, options?: { forUpdate?: boolean }): Promise<Flow | null>;
  /** Newest first; one more than `limit` when more follow. */
  list(tx: Transaction, scope: TenantScope, query: FlowListQuery): Promise<Flow[]>;
  /**
   * Serializes the publishers of one trigger event in one environment until the transaction ends, so two
   * flows published at once never both end up active.
   */
  lockTrigger(tx: Transaction, scope: TenantScope, triggerEvent: FlowTriggerEvent): Promise<void>;
  /** The environment's active flow for a trigger event (locked with `forUpdate`). */
  findActive(tx: Transaction, scope: TenantScope, triggerEvent: FlowTriggerEvent, options?: { forUpdate?: boolean }): Promise<Flow | null>;
  insertVersion(tx: Transaction, scope: TenantScope, version: FlowVersion): Promise<void>;
  findVersion(tx: Transaction, scope: TenantScope, flowId: string, version: number): Promise<FlowVersion | null>;
  /** Newest first. */
  listVersions(tx: Transaction, scope: TenantScope, flowId: string): Promise<FlowVersion[]>;
  /**
   * The version in force of a published flow of `triggerEvent`: the one named by `flowId`, or without it the
   * environment's active one (a flow of another trigger is never returned, even by id).
   */
  findPublished(tx: Transaction, scope: TenantScope, selector: { triggerEvent: FlowTriggerEvent; flowId?: string }): Promise<PublishedFlow | null>;
  /** Published flows whose version in force names each account, by account id (absent: none). */
  publishedFlowsUsing(tx: Transaction, scope: TenantScope, accountIds: readonly string[]): Promise<Map<string, Array<{ id: string; name: string }>>>;
  /**
   * The named connector accounts that exist in the environment, with their kind and connector, held against deletion
   * until the transaction ends (a deletion checks usedByFlows under the account's row lock, so it waits for this publish).
   */
  holdAccounts(tx: Transaction, scope: TenantScope, accountIds: readonly string[]): Promise<Map<string, HeldAccount>>;
}
