/**
 * The flows capability: drafts, published versions and the active flow per trigger event (contract.md 4).
 * Provides services `paymentFlows` (the flow a payment runs) and `connectorAccountUsage` (usedByFlows and the
 * connector-account deletion rule).
 */
import type { FlowDeps } from '../../application/flows/flow-deps';
import { CreateFlow } from '../../application/flows/create-flow';
import { DeleteFlow } from '../../application/flows/delete-flow';
import { PublishFlow } from '../../application/flows/publish-flow';
import { UnpublishFlow } from '../../application/flows/unpublish-flow';
import { PublishedFlows } from '../../application/flows/published-flows';
import { GetFlow, GetFlowBuilderMetadata, ListFlowVersions, ListFlows } from '../../application/flows/read-flows';
import { UpdateFlow } from '../../application/flows/update-flow';
import { flowRoutes } from '../../edge/routes/flow.routes';
import { SqlFlowRepository } from '../persistence/flow.repository';
import type { Core } from './core';
import type { ModuleDefinition, ModuleInstance } from './module';

export const FLOWS_MODULE: ModuleDefinition = {
  name: 'flows',
  build(core: Core): ModuleInstance {
    const deps: FlowDeps = {
      transactor: core.transactor,
      flows: new SqlFlowRepository(),
      clock: core.clock,
      ids: core.ids,
      changes: core.changes,
    };
    const published = new PublishedFlows(deps);
    core.services.provide('paymentFlows', published);
    core.services.provide('connectorAccountUsage', published);
    return {
      routes: flowRoutes({
        metadata: new GetFlowBuilderMetadata(),
        list: new ListFlows(deps),
        create: new CreateFlow(deps),
        get: new GetFlow(deps),
        update: new UpdateFlow(deps),
        remove: new DeleteFlow(deps),
        publish: new PublishFlow(deps),
        unpublish: new UnpublishFlow(deps),
        versions: new ListFlowVersions(deps),
      }),
    };
  },
};
