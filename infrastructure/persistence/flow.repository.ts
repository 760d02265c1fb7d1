import { Flow, type FlowPrimitives } from '../../domain/flow/flow';
import type { FlowGraph, FlowTriggerEvent } from '../../domain/flow/flow-graph';
import { tenantChangeKey } from '../../domain/ports/change-feed';
import type { FlowListQuery, FlowRepository, FlowVersion, HeldAccount, PublishedFlow } from '../../domain/ports/flow-repository';
import type { Transaction } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';
import { announceChange, entityManager } from './mikro-orm-transactor';
import { sameTenant } from './tenant-guard';

const parse = <T>(doc: unknown): T => (typeof doc === 'string' ? JSON.parse(doc) : doc) as T;
/** A timestamptz as ISO 8601: pg gives a Date, PGlite (embedded mode) its text form ("2026-11-26 06:12:54.922+00"). */
const iso = (v: unknown) => new Date(v as Date | string).toISOString();

interface VersionRow {
  flow_id: string;
  version: number;
  trigger_event: FlowTriggerEvent;
  graph: unknown;
  account_ids: string[];
  published_at: unknown;
}

const toVersion = (r: VersionRow): FlowVersion => ({
  flowId: r.flow_id,
  version: Number(r.version),
  triggerEvent: r.trigger_event,
  graph: parse<FlowGraph>(r.graph),
  accountIds: r.account_ids,
  publishedAt: iso(r.published_at),
});

/**
 * Flows as rows: the aggregate in `doc`, with the columns the queries filter on (status, active, the version in
 * force) derived from it on every write. Every update announces a change of the tenant's flows, so routing's
 * memory of the flow in force is dropped in every process.
 */
export class SqlFlowRepository implements FlowRepository {
  async insert(tx: Transaction, flow: Flow): Promise<void> {
    const f = flow.toPrimitives();
    await entityManager(tx).execute(
      `insert into flows (id, organization_id, environment, name, trigger_event, status, active, published_version, doc, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)`,
      [f.id, f.organizationId, f.environment, f.name, f.triggerEvent, f.status, f.active, f.publishedVersion, JSON.stringify(f), f.createdAt, f.updatedAt],
    );
  }

  async update(tx: Transaction, flow: Flow): Promise<void> {
    const f = flow.toPrimitives();
    await entityManager(tx).execute(
      `update flows set name = ?, trigger_event = ?, status = ?, active = ?, published_version = ?, doc = ?::jsonb, updated_at = ?
       where id = ? and ${sameTenant()}`,
      [f.name, f.triggerEvent, f.status, f.active, f.publishedVersion, JSON.stringify(f), f.updatedAt, f.id, f.organizationId, f.environment],
    );
    // Any write may change what runs (publish, unpublish, another flow taking the trigger); edits are rare.
    await announceChange(tx, 'flows', tenantChangeKey({ organizationId: f.organizationId, environment: f.environment }));
  }

  async delete(tx: Transaction, scope: TenantScope, id: string): Promise<void> {
    await entityManager(tx).execute(`delete from flows where id = ? and ${sameTenant()}`, [id, scope.organizationId, scope.environment]);
  }

  async find(tx: Transaction, scope: TenantScope, id: string, options: { forUpdate?: boolean } = {}): Promise<Flow | null> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from flows where id = ? and ${sameTenant()}${options.forUpdate ? ' for update' : ''}`,
      [id, scope.organizationId, scope.environment],
    );
    return rows[0] ? Flow.fromPrimitives(parse<FlowPrimitives>(rows[0].doc)) : null;
  }

  async list(tx: Transaction, scope: TenantScope, query: FlowListQuery): Promise<Flow[]> {
    const params: unknown[] = [scope.organizationId, scope.environment];
    let where = '';
    if (query.startingAfter) {
      where += ' and id < ?';
      params.push(query.startingAfter);
    }
    if (query.status) {
      where += ' and status = ?';
      params.push(query.status);
    }
    if (query.triggerEvent) {
      where += ' and trigger_event = ?';
      params.push(query.triggerEvent);
    }
    params.push(query.limit + 1);
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from flows where organization_id = ? and environment = ?${where} order by id desc limit ?`,
      params,
    );
    return rows.map((r) => Flow.fromPrimitives(parse<FlowPrimitives>(r.doc)));
  }

  async lockTrigger(tx: Transaction, scope: TenantScope, triggerEvent: FlowTriggerEvent): Promise<void> {
    await entityManager(tx).execute(`select pg_advisory_xact_lock(hashtext(?))`, [`flows:${tenantChangeKey(scope)}:${triggerEvent}`]);
  }

  async findActive(tx: Transaction, scope: TenantScope, triggerEvent: FlowTriggerEvent, options: { forUpdate?: boolean } = {}): Promise<Flow | null> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from flows where organization_id = ? and environment = ? and trigger_event = ? and active${options.forUpdate ? ' for update' : ''}`,
      [scope.organizationId, scope.environment, triggerEvent],
    );
    return rows[0] ? Flow.fromPrimitives(parse<FlowPrimitives>(rows[0].doc)) : null;
  }

  async insertVersion(tx: Transaction, scope: TenantScope, v: FlowVersion): Promise<void> {
    // `array[?]` with a list: each id goes as a parameter of its own (sql-statements.ts), no array literal to quote.
    await entityManager(tx).execute(
      `insert into flow_versions (flow_id, version, organization_id, environment, trigger_event, graph, account_ids, published_at)
       values (?, ?, ?, ?, ?, ?::jsonb, array[?]::text[], ?)`,
      [v.flowId, v.version, scope.organizationId, scope.environment, v.triggerEvent, JSON.stringify(v.graph), [...v.accountIds], v.publishedAt],
    );
  }

  async findVersion(tx: Transaction, scope: TenantScope, flowId: string, version: number): Promise<FlowVersion | null> {
    const rows = await entityManager(tx).execute<VersionRow[]>(
      `select flow_id, version, trigger_event, graph, account_ids, published_at from flow_versions
       where flow_id = ? and version = ? and organization_id = ? and environment = ?`,
      [flowId, version, scope.organizationId, scope.environment],
    );
    return rows[0] ? toVersion(rows[0]) : null;
  }

  async listVersions(tx: Transaction, scope: TenantScope, flowId: string): Promise<FlowVersion[]> {
    const rows = await entityManager(tx).execute<VersionRow[]>(
      `select flow_id, version, trigger_event, graph, account_ids, published_at from flow_versions
       where flow_id = ? and organization_id = ? and environment = ? order by version desc`,
      [flowId, scope.organizationId, scope.environment],
    );
    return rows.map(toVersion);
  }

  async findPublished(tx: Transaction, scope: TenantScope, selector: { triggerEvent: FlowTriggerEvent; flowId?: string }): Promise<PublishedFlow | null> {
    const [filter, params] = selector.flowId ? ['f.id = ?', [selector.flowId]] : ['f.active', []];
    const rows = await entityManager(tx).execute<Array<{ id: string; name: string; version: number; graph: unknown }>>(
      `select f.id, f.name, v.version, v.graph from flows f join flow_versions v on v.flow_id = f.id and v.version = f.published_version
       where f.organization_id = ? and f.environment = ? and f.status = 'published' and f.trigger_event = ? and ${filter}`,
      [scope.organizationId, scope.environment, selector.triggerEvent, ...params],
    );
    const r = rows[0];
    return r ? { flowId: r.id, name: r.name, version: Number(r.version), graph: parse<FlowGraph>(r.graph) } : null;
  }

  async publishedFlowsUsing(tx: Transaction, scope: TenantScope, accountIds: readonly string[]): Promise<Map<string, Array<{ id: string; name: string }>>> {
    const used = new Map<string, Array<{ id: string; name: string }>>();
    if (accountIds.length === 0) return used;
    const rows = await entityManager(tx).execute<Array<{ account_id: string; id: string; name: string }>>(
      `select cited.account_id, f.id, f.name
       from flows f join flow_versions v on v.flow_id = f.id and v.version = f.published_version
       cross join lateral unnest(v.account_ids) as cited (account_id)
       where f.organization_id = ? and f.environment = ? and f.status = 'published' and cited.account_id = any (array[?]::text[])
       order by f.id`,
      [scope.organizationId, scope.environment, [...accountIds]],
    );
    for (const r of rows) used.set(r.account_id, [...(used.get(r.account_id) ?? []), { id: r.id, name: r.name }]);
    return used;
  }

  async holdAccounts(tx: Transaction, scope: TenantScope, accountIds: readonly string[]): Promise<Map<string, HeldAccount>> {
    if (accountIds.length === 0) return new Map();
    const rows = await entityManager(tx).execute<Array<{ id: string; kind: HeldAccount['kind']; connector_slug: string }>>(
      `select id, kind, connector_slug from connector_accounts
       where organization_id = ? and environment = ? and deleted_at is null and id = any (array[?]::text[])
       order by id for share`,
      [scope.organizationId, scope.environment, [...accountIds]],
    );
    return new Map(rows.map((r) => [r.id, { kind: r.kind, connectorSlug: r.connector_slug }]));
  }
}
