/**
 * A manual flow's run (POST /v1/flows/{id}/run; docs/flows.md, "Manual runs"). Pure: walks the published graph from
 * its trigger over the given facts (a payment's, or the caller's `input`), deciding conditions, switches and
 * variables the way a payment's run does, and notifying at webhook nodes. Nodes that charge, screen, authenticate,
 * hold or wait act only in a payment's own run: a manual run stops at the first one and says so.
 */
import type { FlowGraph, FlowNode } from '../flow/flow-graph';
import { conditionRules, evaluateRule, type FactValue, type FlowPaymentFacts, type FlowRule } from '../flow/flow-rules';

export interface ManualRunStep {
  readonly nodeId: string;
  readonly type: string;
  /** The port the run left by; null for the node it ended at. */
  readonly port: string | null;
  readonly note?: string;
}

export type ManualRunOutcome = 'approved' | 'declined' | 'stopped' | 'flow_incomplete';

export interface ManualRunResult {
  readonly outcome: ManualRunOutcome;
  readonly steps: readonly ManualRunStep[];
  /** Webhook nodes passed, in order: each becomes one flow.notification. */
  readonly notifications: ReadonlyArray<{ readonly nodeId: string; readonly data: Record<string, unknown> }>;
  readonly variables: Readonly<Record<string, FactValue>>;
}

export function walkManualRun(graph: FlowGraph, facts: FlowPaymentFacts): ManualRunResult {
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  const next = (node: FlowNode, port: string) => {
    // An edge from a node with one port may omit it (that port is `next`).
    const edge = graph.edges.find((e) => e.source === node.id && (e.sourcePort ?? 'next') === port);
    return edge ? nodes.get(edge.target) : undefined;
  };
  const steps: ManualRunStep[] = [];
  const notifications: Array<{ nodeId: string; data: Record<string, unknown> }> = [];
  const variables: Record<string, FactValue> = {};
  const variableMap = () => new Map(Object.entries(variables));
  let node = graph.nodes.find((n) => n.type === 'trigger');
  // A published graph has no loops a manual run can take (only a retry node closes one, and the run stops there).
  for (let guard = 0; node && guard <= graph.nodes.length; guard++) {
    let port: string;
    switch (node.type) {
      case 'trigger':
        port = 'next';
        break;
      case 'condition': {
        const { rules, match } = conditionRules(node.data);
        const results = (rules as FlowRule[]).map((rule) => evaluateRule(rule, facts, variableMap()));
        port = (match === 'any' ? results.some(Boolean) : results.every(Boolean)) ? 'true' : 'false';
        break;
      }
      case 'switch': {
        const cases = (node.data.cases ?? []) as Array<{ value: unknown }>;
        const current: FlowNode = node;
        const hit = cases.findIndex((c) => evaluateRule({ field: String(current.data.field), operator: 'eq', value: c.value } as FlowRule, facts, variableMap()));
        port = hit >= 0 ? `case_${hit + 1}` : 'default';
        break;
      }
      case 'set_variable':
        variables[String(node.data.name)] = node.data.value as FactValue;
        port = 'next';
        break;
      case 'webhook':
        notifications.push({ nodeId: node.id, data: { ...node.data } });
        port = 'next';
        break;
      case 'approve':
      case 'decline':
        steps.push({ nodeId: node.id, type: node.type, port: null });
        return { outcome: node.type === 'approve' ? 'approved' : 'declined', steps, notifications, variables };
      default:
        steps.push({ nodeId: node.id, type: node.type, port: null, note: `A ${node.type} node acts only in a payment's own run; a manual run stops here.` });
        return { outcome: 'stopped', steps, notifications, variables };
    }
    steps.push({ nodeId: node.id, type: node.type, port });
    const following = next(node, port);
    if (!following) {
      steps[steps.length - 1] = { ...steps[steps.length - 1]!, note: `Port ${port} leads nowhere.` };
      return { outcome: 'flow_incomplete', steps, notifications, variables };
    }
    node = following;
  }
  return { outcome: 'flow_incomplete', steps, notifications, variables };
}
