import { flowBuilderMetadata } from '../../domain/flow/builder-metadata';
import type { FlowTriggerEvent } from '../../domain/flow/flow-graph';
import { NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { FlowDeps } from './flow-deps';
import { flowObject, flowVersionObject } from './flow-object';

export class GetFlowBuilderMetadata {
  execute() {
    return flowBuilderMetadata();
  }
}

export class ListFlows {
  constructor(private readonly deps: FlowDeps) {}

  async execute(scope: TenantScope, query: { limit: number; startingAfter?: string; status?: 'draft' | 'published'; triggerEvent?: FlowTriggerEvent }) {
    const flows = await this.deps.transactor.read((tx) => this.deps.flows.list(tx, scope, query));
    const page = flows.slice(0, query.limit).map((f) => flowObject(f.toPrimitives()));
    return { object: 'list' as const, data: page, hasMore: flows.length > query.limit };
  }
}

export class GetFlow {
  constructor(private readonly deps: FlowDeps) {}

  async execute(scope: TenantScope, id: string) {
    const flow = await this.deps.transactor.read((tx) => this.deps.flows.find(tx, scope, id));
    if (!flow) throw new NotFoundError('flow', id);
    return flowObject(flow.toPrimitives());
  }
}

/** GET /v1/flows/{id}/versions: every published version kept, newest first, and which one is in force. */
export class ListFlowVersions {
  constructor(private readonly deps: FlowDeps) {}

  async execute(scope: TenantScope, id: string) {
    return this.deps.transactor.read(async (tx) => {
      const flow = await this.deps.flows.find(tx, scope, id);
      if (!flow) throw new NotFoundError('flow', id);
      const versions = await this.deps.flows.listVersions(tx, scope, id);
      const f = flow.toPrimitives();
      return { object: 'list' as const, data: versions.map((v) => flowVersionObject(v, f)), hasMore: false };
    });
  }
}
