import { NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { FlowDeps } from './flow-deps';

/** DELETE /v1/flows/{id}: a draft only (409 while published: unpublish it first); its versions go with it. */
export class DeleteFlow {
  constructor(private readonly deps: FlowDeps) {}

  async execute(scope: TenantScope, id: string) {
    return this.deps.transactor.run(async (tx) => {
      const flow = await this.deps.flows.find(tx, scope, id, { forUpdate: true });
      if (!flow) throw new NotFoundError('flow', id);
      flow.markDeleted(this.deps.clock.now());
      await this.deps.flows.delete(tx, scope, id);
      return { object: 'flow' as const, id, deleted: true };
    });
  }
}
