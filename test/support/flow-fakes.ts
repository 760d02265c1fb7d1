/**
 * Hand-written fakes of the flow ports, for use-case unit tests with no I/O. The repository keeps flows and
 * versions in maps, and records which trigger events were locked and which accounts were held.
 */
import { Flow } from '../../domain/flow/flow';
import type { FlowTriggerEvent } from '../../domain/flow/flow-graph';
import type { FlowListQuery, FlowRepository, FlowVersion, HeldAccount, PublishedFlow } from '../../domain/ports/flow-repository';
import type { Transaction } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';
import type { FlowDeps } from '../../application/flows/flow-deps';
import { FakeTransactor, SequentialIds, SteppingClock } from './payment-fakes';

const key = (scope: TenantScope, id: string) => `${scope.organizationId}/${scope.environment}/${id}`;

export class InMemoryFlows implements FlowRepository {
  readonly rows = new Map<string, ReturnType<Flow['toPrimitives']>>();
  readonly versions = new Map<string, FlowVersion[]>();
  /** Connector accounts of each environment the graphs may name, with their kind and connector. */
  readonly accounts = new Map<string, HeldAccount>();
  readonly lockedTriggers: FlowTriggerEvent[] = [];

  /** Seeds an acquirer account the graphs may name (of the sandbox connector unless told). */
  withAcquirer(scope: TenantScope, id: string, connectorSlug = 'sandbox'): this {
    this.accounts.set(key(scope, id), { kind: 'acquirer', connectorSlug });
    return this;
  }

  async insert(_tx: Transaction, flow: Flow) {
    const p = flow.toPrimitives();
    this.rows.set(key(p, p.id), p);
  }
  async update(_tx: Transaction, flow: Flow) {
    const p = flow.toPrimitives();
    if (!this.rows.has(key(p, p.id))) throw new Error(`update of a flow never inserted: ${p.id}`);
    this.rows.set(key(p, p.id), p);
  }
  async delete(_tx: Transaction, scope: TenantScope, id: string) {
    this.rows.delete(key(scope, id));
    this.versions.delete(key(scope, id));
  }
  async find(_tx: Transaction, scope: TenantScope, id: string) {
    const p = this.rows.get(key(scope, id));
    return p ? Flow.fromPrimitives(structuredClone(p)) : null;
  }
  async list(_tx: Transaction, scope: TenantScope, query: FlowListQuery) {
    return [...this.rows.values()]
      .filter((p) => p.organizationId === scope.organizationId && p.environment === scope.environment)
      .slice(0, query.limit + 1)
      .map((p) => Flow.fromPrimitives(structuredClone(p)));
  }
  async lockTrigger(_tx: Transaction, _scope: TenantScope, triggerEvent: FlowTriggerEvent) {
    this.lockedTriggers.push(triggerEvent);
  }
  async findActive(_tx: Transaction, scope: TenantScope, triggerEvent: FlowTriggerEvent) {
    const p = [...this.rows.values()].find(
      (r) => r.organizationId === scope.organizationId && r.environment === scope.environment && r.triggerEvent === triggerEvent && r.active,
    );
    return p ? Flow.fromPrimitives(structuredClone(p)) : null;
  }
  async insertVersion(_tx: Transaction, scope: TenantScope, version: FlowVersion) {
    const list = this.versions.get(key(scope, version.flowId)) ?? [];
    if (list.some((v) => v.version === version.version)) throw new Error(`version ${version.version} of ${version.flowId} stored twice`);
    this.versions.set(key(scope, version.flowId), [...list, version]);
  }
  async findVersion(_tx: Transaction, scope: TenantScope, flowId: string, version: number) {
    return this.versions.get(key(scope, flowId))?.find((v) => v.version === version) ?? null;
  }
  async listVersions(_tx: Transaction, scope: TenantScope, flowId: string) {
    return [...(this.versions.get(key(scope, flowId)) ?? [])].reverse();
  }
  /** How many times findPublished read the store (what PublishedFlows keeps in memory). */
  publishedReads = 0;
  async findPublished(_tx: Transaction, scope: TenantScope, selector: { triggerEvent: FlowTriggerEvent; flowId?: string }): Promise<PublishedFlow | null> {
    this.publishedReads += 1;
    const p = this.publishedOf(scope).find((r) => r.triggerEvent === selector.triggerEvent && (selector.flowId ? r.id === selector.flowId : r.active));
    const version = p && (await this.findVersion({} as Transaction, scope, p.id, p.publishedVersion!));
    return p && version ? { flowId: p.id, name: p.name, version: version.version, graph: version.graph } : null;
  }
  async publishedFlowsUsing(_tx: Transaction, scope: TenantScope, accountIds: readonly string[]) {
    const using = new Map<string, Array<{ id: string; name: string }>>();
    for (const p of this.publishedOf(scope)) {
      const inForce = this.versions.get(key(scope, p.id))?.find((v) => v.version === p.publishedVersion);
      for (const id of accountIds.filter((a) => inForce?.accountIds.includes(a))) using.set(id, [...(using.get(id) ?? []), { id: p.id, name: p.name }]);
    }
    return using;
  }
  private publishedOf(scope: TenantScope) {
    return [...this.rows.values()].filter((r) => r.organizationId === scope.organizationId && r.environment === scope.environment && r.status === 'published');
  }
  async holdAccounts(_tx: Transaction, scope: TenantScope, accountIds: readonly string[]) {
    const held = new Map<string, HeldAccount>();
    for (const id of accountIds) {
      const facts = this.accounts.get(key(scope, id));
      if (facts) held.set(id, facts);
    }
    return held;
  }

  /** The stored state of a flow, as a test reads it back. */
  stored(scope: TenantScope, id: string) {
    return this.rows.get(key(scope, id));
  }
}

export function flowDeps() {
  const transactor = new FakeTransactor();
  const flows = new InMemoryFlows();
  const clock = new SteppingClock(new Date('2026-03-01T12:00:00.000Z'), 1_000);
  const deps: FlowDeps = { transactor, flows, clock, ids: new SequentialIds() };
  return { deps, flows, transactor, clock };
}
