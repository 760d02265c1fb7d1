import type { FlowGraph, FlowTriggerEvent } from '../../domain/flow/flow-graph';
import { NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { FlowDeps } from './flow-deps';
import { flowObject } from './flow-object';

export interface FlowChanges {
  readonly name?: string;
  readonly description?: string | null;
  readonly triggerEvent?: FlowTriggerEvent;
  readonly graph?: FlowGraph;
}

/** PATCH /v1/flows/{id}: edits the draft; what payments run changes only when it is published. */
export class UpdateFlow {
  constructor(private readonly deps: FlowDeps) {}

  async execute(scope: TenantScope, id: string, changes: FlowChanges) {
    return this.deps.transactor.run(async (tx) => {
      const flow = await this.deps.flows.find(tx, scope, id, { forUpdate: true });
      if (!flow) throw new NotFoundError('flow', id);
      flow.edit(changes, this.deps.clock.now());
      await this.deps.flows.update(tx, flow);
      return flowObject(flow.toPrimitives());
    });
  }
}
