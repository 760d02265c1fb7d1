/** Small builders shared by the flow unit tests: graphs, payment facts and routable accounts. */
import type { FlowEdge, FlowGraph, FlowNode, FlowNodeType } from '../../../../domain/flow/flow-graph';
import type { FlowPaymentFacts } from '../../../../domain/flow/flow-rules';
import type { RoutableAccount, RoutingPaymentProjection } from '../../../../domain/payment/routing/direct-routing';

export function n(id: string, type: FlowNodeType, data: Record<string, unknown> = {}): FlowNode {
  return { id, type, position: { x: 0, y: 0 }, data };
}

/** An edge whose id is `source-port` (or `source-next` without a port). */
export function e(source: string, target: string, sourcePort?: string, id?: string): FlowEdge {
  return { id: id ?? `${source}-${sourcePort ?? 'next'}`, source, target, ...(sourcePort ? { sourcePort } : {}) };
}

export function graph(nodes: FlowNode[], edges: FlowEdge[]): FlowGraph {
  return { nodes, edges };
}

export function facts(overrides: Partial<FlowPaymentFacts> = {}): FlowPaymentFacts {
  return {
    amount: 10_000,
    currency: 'BRL',
    installments: 1,
    methodType: 'card',
    captureMethod: 'automatic',
    initiator: 'customer',
    hasSplits: false,
    customerId: 'cus_1',
    cardBrand: 'Visa',
    cardBin: '41111111',
    metadata: { channel: 'web', tier: 'Gold', score: 42, vip: true },
    ...overrides,
  };
}

export function account(id: string, overrides: Partial<RoutableAccount> = {}): RoutableAccount {
  return { id, connectorSlug: 'sandbox', enabled: true, capabilities: ['card', 'pix'], costBasisPoints: 100, createdAt: '2026-01-01T00:00:00.000Z', ...overrides };
}

export const cardPayment: RoutingPaymentProjection = { methodType: 'card', amount: 10_000, currency: 'BRL', installments: 1, hasSplits: false };

/** trigger -> acquirer(accountId) -> approve / decline: the smallest publishable graph. */
export function minimalGraph(accountId = 'ca_1'): FlowGraph {
  return graph(
    [n('t', 'trigger'), n('a', 'acquirer', { connectorAccountId: accountId }), n('ok', 'approve'), n('no', 'decline')],
    [e('t', 'a'), e('a', 'ok', 'approved'), e('a', 'no', 'declined')],
  );
}
