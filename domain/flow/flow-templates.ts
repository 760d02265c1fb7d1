/**
 * The ready templates a draft may start from (POST /v1/flows `template`). Accounts are left blank: the merchant
 * picks them (and a split node's recipients) in the builder (PATCH the draft), and publishing says which node still
 * needs one. Each is a
 * graph that publishes once its accounts are filled and runs as it reads (test/e2e/flows/flow-triggers.test.ts).
 */
import type { FlowEdge, FlowGraph, FlowNode, FlowNodeType, FlowTriggerEvent } from './flow-graph';

export interface FlowTemplate {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly triggerEvent: FlowTriggerEvent;
  readonly graph: FlowGraph;
}

const node = (id: string, type: FlowNodeType, x: number, y: number, data: Record<string, unknown> = {}, label?: string): FlowNode => ({
  id, type, position: { x, y }, data, ...(label ? { label } : {}),
});
const edge = (source: string, target: string, sourcePort?: string): FlowEdge => ({
  id: `${source}-${sourcePort ?? 'next'}`, source, target, ...(sourcePort ? { sourcePort } : {}),
});

export const FLOW_TEMPLATES: readonly FlowTemplate[] = [
  {
    id: 'roteamento-por-ticket',
    name: 'Roteamento por ticket',
    description: 'Tickets from R$ 1.000,00 go to the cheapest of several acquirers; smaller ones to one acquirer with a fallback.',
    triggerEvent: 'payment.authorization_requested',
    graph: {
      nodes: [
        node('trigger', 'trigger', 0, 0),
        node('high-ticket', 'condition', 0, 120, { field: 'amount', operator: 'gte', value: 100_000 }, 'Ticket >= R$ 1.000,00'),
        node('route-high', 'route', -200, 240, { strategy: 'lowest_cost', connectorAccountIds: [] }, 'Lowest cost'),
        node('acquirer-low', 'acquirer', 200, 240, { connectorAccountId: '' }, 'Main acquirer'),
        node('acquirer-fallback', 'acquirer', 200, 360, { connectorAccountId: '' }, 'Fallback acquirer'),
        node('approve', 'approve', 0, 480),
        node('decline', 'decline', 200, 480),
      ],
      edges: [
        edge('trigger', 'high-ticket'),
        edge('high-ticket', 'route-high', 'true'),
        edge('high-ticket', 'acquirer-low', 'false'),
        edge('route-high', 'approve', 'approved'),
        edge('route-high', 'decline', 'declined'),
        edge('acquirer-low', 'approve', 'approved'),
        edge('acquirer-low', 'decline', 'declined'),
        edge('acquirer-low', 'acquirer-fallback', 'error'),
        edge('acquirer-fallback', 'approve', 'approved'),
        edge('acquirer-fallback', 'decline', 'declined'),
      ],
    },
  },
  {
    id: 'recorrencia-com-retentativa',
    name: 'Recorrência com retentativa',
    description: 'A subscription renewal charged at one acquirer, retried daily on a reversible decline (3 times at most, within the card brand\'s retry budget).',
    triggerEvent: 'subscription.renewal',
    graph: {
      nodes: [
        node('trigger', 'trigger', 0, 0),
        node('acquirer', 'acquirer', 0, 120, { connectorAccountId: '' }),
        node('retry', 'retry', 200, 240, { maxAttempts: 3, intervalMinutes: 1_440 }),
        node('approve', 'approve', 0, 360),
        node('decline', 'decline', 200, 360),
      ],
      edges: [
        edge('trigger', 'acquirer'),
        edge('acquirer', 'approve', 'approved'),
        edge('acquirer', 'retry', 'declined'),
        edge('retry', 'acquirer', 'retry'),
        edge('retry', 'decline', 'exhausted'),
      ],
    },
  },
  {
    id: 'marketplace-split',
    name: 'Marketplace com split',
    description: 'Each payment is divided before it is authorized: the seller named in the split node takes 90 % (a payment\'s own splits are kept instead), the marketplace keeps the rest; the cheapest of the acquirers that execute splits charges it.',
    triggerEvent: 'payment.authorization_requested',
    graph: {
      nodes: [
        node('trigger', 'trigger', 0, 0),
        node('split', 'split', 0, 120, { splits: [{ recipientId: '', type: 'percentage', value: 9_000 }] }, 'Seller takes 90 %'),
        node('route-split', 'route', 0, 240, { strategy: 'lowest_cost', connectorAccountIds: [] }, 'Split-capable acquirers'),
        node('approve', 'approve', -100, 360),
        node('decline', 'decline', 100, 360),
      ],
      edges: [
        edge('trigger', 'split'),
        edge('split', 'route-split'),
        edge('route-split', 'approve', 'approved'),
        edge('route-split', 'decline', 'declined'),
      ],
    },
  },
];

export const FLOW_TEMPLATE_IDS = FLOW_TEMPLATES.map((t) => t.id);

export function flowTemplate(id: string): FlowTemplate | undefined {
  return FLOW_TEMPLATES.find((t) => t.id === id);
}
