/**
 * Stands in for the flows module where a test composes connectors without flows: connectors need to know which
 * published flows cite an account, and here none does. Payments built after it get no `paymentFlows`, so every
 * payment is routed directly, as without the flows module.
 */
import type { ModuleDefinition } from '../../infrastructure/main/module';
import type { ConnectorAccountUsage } from '../../domain/ports/connector-catalog';

export const NO_FLOWS_MODULE: ModuleDefinition<unknown, { readonly connectorAccountUsage: ConnectorAccountUsage }> = {
  name: 'no-flows',
  build: () => ({ provides: { connectorAccountUsage: { publishedFlowsUsing: async () => new Map() } } }),
};
