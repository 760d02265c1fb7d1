/**
 * The flows capability: drafts, published versions and the active flow per trigger event (contract.md 4).
 * Needs no other module; built before connectors, which ask it which flows cite an account. Publishing reads the
 * accounts' capabilities from the core's connector catalog, the one connector accounts show.
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
import { flowRunRoutes } from '../../edge/routes/flow-runs.routes';
import { RunManualFlow } from '../../application/flows/run-manual-flow';
import { SqlManualFlowRunRepository, SqlManualRunPayments } from '../persistence/manual-flow-run.repository';
import { SqlFlowRepository } from '../persistence/flow.repository';
import { SqlRecipientRepository } from '../persistence/recipient.repository';
import { CatalogConnectorCapabilities } from '../../application/connector-account/catalog-connector-capabilities';
import type { PaymentFlows } from '../../domain/ports/payment-flows';
import type { ConnectorAccountUsage } from '../../domain/ports/connector-catalog';
import type { Core } from './core';
import type { BuiltModule, ModuleDefinition } from './module';

/** What flows give to the modules built after them. */
export interface FlowsServices {
  /** The flow a payment runs. */
  readonly paymentFlows: PaymentFlows;
  /** The published flows citing a connector account (usedByFlows and the connector-account deletion rule). */
  readonly connectorAccountUsage: ConnectorAccountUsage;
}

export const FLOWS_MODULE: ModuleDefinition<unknown, FlowsServices> = {
  name: 'flows',
  build(core: Core): BuiltModule<FlowsServices> {
    const deps: FlowDeps = {
      transactor: core.transactor,
      flows: new SqlFlowRepository(),
      clock: core.clock,
      ids: core.ids,
      changes: core.changes,
      recipients: new SqlRecipientRepository(),
      capabilities: new CatalogConnectorCapabilities(core.connectorCatalog),
    };
    const published = new PublishedFlows(deps);
    return {
      provides: { paymentFlows: published, connectorAccountUsage: published },
      routes: [
        ...flowRoutes({
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
        // Manual flows (triggerEvent manual) run on request; a run over a payment reads its facts.
        ...flowRunRoutes({ run: new RunManualFlow({ ...deps, outbox: core.outbox, runs: new SqlManualFlowRunRepository(), payments: new SqlManualRunPayments() }) }),
      ],
    };
  },
};
