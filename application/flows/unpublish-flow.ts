import { NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { FlowDeps } from './flow-deps';
import { flowObject } from './flow-object';

/** POST /v1/flows/{id}/unpublish: payments stop running it; the environment falls back to direct routing. */
export class UnpublishFlow {
  constructor(private readonly deps: FlowDeps) {}

  async execute(scope: TenantScope, id: string) {
    return this.deps.transactor.run(async (tx) => {
      const flow = await this.deps.flows.find(tx, scope, id, { forUpdate: true });
      if (!flow) throw new NotFoundError('flow', id);
      flow.unpublish(this.deps.clock.now());
      await this.deps.flows.update(tx, flow);
      return flowObject(flow.toPrimitives());
    });
  }
}
