/**
 * GET /v1/flows/builder-metadata: everything a visual editor needs to draw and check a flow (node palette with
 * exit ports and data fields, rule fields and operators, route strategies, templates), and which parts this
 * version runs once published.
 */
import { FLOW_NODE_TYPES, FLOW_TRIGGER_EVENTS, portsOfType, type FlowNodeType } from './flow-graph';
import { FLOW_RULE_FIELDS, FLOW_RULE_OPERATORS } from './flow-rules';
import { FLOW_TEMPLATES } from './flow-templates';
import { ROUTE_STRATEGIES, RUNNABLE_NODE_TYPES, RUNNABLE_TRIGGER_EVENTS } from './publish-check';

const NODE_INFO: Record<FlowNodeType, { label: string; category: string; data: Record<string, string> }> = {
  trigger: { label: 'Trigger', category: 'start', data: {} },
  condition: { label: 'Condition', category: 'logic', data: { field: 'rule field', operator: 'rule operator', value: 'compared value', rules: 'or: list of {field, operator, value}', match: 'all (default) or any' } },
  switch: { label: 'Switch', category: 'logic', data: { field: 'rule field', cases: 'list of {value}: port case_i is taken when the field equals the i-th value' } },
  set_variable: { label: 'Set variable', category: 'logic', data: { name: 'variable name (letters, digits, _)', value: 'string, number or boolean' } },
  acquirer: { label: 'Acquirer', category: 'payment', data: { connectorAccountId: 'acquirer connector account' } },
  route: { label: 'Route', category: 'payment', data: { strategy: 'priority, weighted or lowest_cost', connectorAccountIds: 'acquirer accounts, in priority order', weights: 'weighted: one whole weight per account' } },
  antifraud: { label: 'Antifraud', category: 'risk', data: { connectorAccountId: 'antifraud connector account' } },
  zero_auth: { label: 'Card validation', category: 'risk', data: { connectorAccountId: 'acquirer connector account' } },
  three_ds: { label: '3DS authentication', category: 'risk', data: { connectorAccountId: 'acquirer connector account' } },
  review: { label: 'Manual review', category: 'risk', data: {} },
  capture: { label: 'Capture', category: 'payment', data: {} },
  split: { label: 'Split', category: 'payment', data: {} },
  retry: { label: 'Retry', category: 'recovery', data: { maxAttempts: 'retries before exhausted (1-20)', intervalMinutes: 'wait before each retry (1-43200); the card brand\'s retry budget can exhaust it earlier' } },
  delay: { label: 'Delay', category: 'logic', data: { minutes: 'wait' } },
  webhook: { label: 'Notify webhook', category: 'notify', data: {} },
  approve: { label: 'Approve', category: 'end', data: {} },
  decline: { label: 'Decline', category: 'end', data: {} },
};

export function flowBuilderMetadata() {
  return {
    object: 'flow_builder_metadata' as const,
    triggerEvents: FLOW_TRIGGER_EVENTS.map((event) => ({ event, publishable: RUNNABLE_TRIGGER_EVENTS.includes(event) })),
    nodeTypes: FLOW_NODE_TYPES.map((type) => ({
      type,
      label: NODE_INFO[type].label,
      category: NODE_INFO[type].category,
      ports: [...portsOfType(type)],
      terminal: portsOfType(type).length === 0,
      data: NODE_INFO[type].data,
      publishable: RUNNABLE_NODE_TYPES.includes(type),
    })),
    ruleFields: FLOW_RULE_FIELDS.map((f) => ({ ...f })),
    operators: FLOW_RULE_OPERATORS.map((o) => ({ ...o })),
    routeStrategies: [...ROUTE_STRATEGIES],
    templates: FLOW_TEMPLATES.map((t) => ({ id: t.id, name: t.name, description: t.description, triggerEvent: t.triggerEvent, graph: t.graph })),
    limits: { nodes: { min: 1, max: 120 } },
  };
}
