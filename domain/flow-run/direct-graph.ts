/**
 * Direct routing (contract.md 4) as a graph, so a payment without a published flow runs through the same step
 * function: trigger -> route over the environment's accounts for the method, lowest cost first (priority in
 * that order) -> approve on approved, decline on declined and when every account failed.
 */
import type { FlowGraph } from '../flow/flow-graph';
import { rankByCost, type RoutableAccount, type RoutingPaymentProjection } from '../payment/routing/direct-routing';

export const DIRECT_ROUTE_NODE_ID = 'direct-route';

export function directRoutingGraph(payment: Pick<RoutingPaymentProjection, 'methodType'>, accounts: readonly RoutableAccount[]): FlowGraph {
  const ranked = rankByCost(accounts.filter((a) => a.enabled && a.capabilities.includes(payment.methodType)));
  return priorityRouteGraph(ranked.map((a) => a.id));
}

/** The built-in graph over accounts already ranked: trigger -> route (priority, as listed) -> approve / decline. */
export function priorityRouteGraph(accountIds: readonly string[]): FlowGraph {
  const at = { x: 0, y: 0 };
  return {
    nodes: [
      { id: 'direct-trigger', type: 'trigger', position: at, data: {} },
      { id: DIRECT_ROUTE_NODE_ID, type: 'route', position: at, data: { strategy: 'priority', connectorAccountIds: [...accountIds] } },
      { id: 'direct-approve', type: 'approve', position: at, data: {} },
      { id: 'direct-decline', type: 'decline', position: at, data: {} },
    ],
    edges: [
      { id: 'e1', source: 'direct-trigger', target: DIRECT_ROUTE_NODE_ID, sourcePort: 'next' },
      { id: 'e2', source: DIRECT_ROUTE_NODE_ID, target: 'direct-approve', sourcePort: 'approved' },
      { id: 'e3', source: DIRECT_ROUTE_NODE_ID, target: 'direct-decline', sourcePort: 'declined' },
      { id: 'e4', source: DIRECT_ROUTE_NODE_ID, target: 'direct-decline', sourcePort: 'error' },
    ],
  };
}
