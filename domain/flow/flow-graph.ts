/**
 * A flow's graph: nodes joined by edges leaving named exit ports (contract.md 4). The port names are stable
 * and listed by builder-metadata; a switch has one port per case (`case_1` ... `case_n`) plus `default`.
 * Pure: the structural rules every saved draft obeys, so an editor never stores edges into nowhere.
 */

export const FLOW_TRIGGER_EVENTS = ['payment.authorization_requested', 'invoice.payment_due', 'subscription.renewal', 'payment.retry_requested', 'manual'] as const;
export type FlowTriggerEvent = (typeof FLOW_TRIGGER_EVENTS)[number];

export const FLOW_NODE_TYPES = [
  'trigger', 'condition', 'switch', 'set_variable', 'acquirer', 'antifraud', 'zero_auth', 'three_ds', 'review',
  'route', 'capture', 'split', 'retry', 'delay', 'webhook', 'approve', 'decline',
] as const;
export type FlowNodeType = (typeof FLOW_NODE_TYPES)[number];

export type FlowNodeData = Record<string, unknown>;

export interface FlowNode {
  id: string;
  type: FlowNodeType;
  position: { x: number; y: number };
  label?: string | null;
  notes?: string | null;
  data: FlowNodeData;
}

export interface FlowEdge {
  id: string;
  source: string;
  target: string;
  /** The exit port of the source; may be omitted when the source has a single port. */
  sourcePort?: string | null;
}

export interface FlowGraph {
  nodes: FlowNode[];
  edges: FlowEdge[];
}

const FIXED_PORTS: Record<Exclude<FlowNodeType, 'switch'>, readonly string[]> = {
  trigger: ['next'],
  condition: ['true', 'false'],
  set_variable: ['next'],
  acquirer: ['approved', 'declined', 'error'],
  route: ['approved', 'declined', 'error'],
  antifraud: ['approve', 'review', 'decline', 'error'],
  zero_auth: ['valid', 'invalid', 'unavailable'],
  three_ds: ['authenticated', 'failed', 'unavailable'],
  review: ['approved', 'declined'],
  retry: ['retry', 'exhausted'],
  capture: ['next'],
  split: ['next'],
  delay: ['next'],
  webhook: ['next'],
  approve: [],
  decline: [],
};

/** The exit ports of every type, as builder-metadata lists them (switch: its cases, then default). */
export function portsOfType(type: FlowNodeType): readonly string[] {
  return type === 'switch' ? ['case_1', '...', 'case_n', 'default'] : FIXED_PORTS[type];
}

/** The exit ports of one node: a switch's follow its `data.cases`. */
export function exitPorts(node: Pick<FlowNode, 'type' | 'data'>): string[] {
  if (node.type !== 'switch') return [...FIXED_PORTS[node.type]];
  const cases = Array.isArray(node.data.cases) ? node.data.cases.length : 0;
  return [...Array.from({ length: cases }, (_, i) => `case_${i + 1}`), 'default'];
}

/** The port an edge leaves from: its sourcePort, or the source's only port. */
export function edgePort(edge: FlowEdge, source: Pick<FlowNode, 'type' | 'data'>): string | null {
  if (edge.sourcePort) return edge.sourcePort;
  const ports = exitPorts(source);
  return ports.length === 1 ? ports[0]! : null;
}

export interface GraphProblem {
  param: string;
  message: string;
}

/**
 * What makes a graph unstorable even as a draft: repeated ids, edges naming a node or port that does not exist,
 * two edges leaving one port. Completeness (every port wired, accounts named) is checked only when publishing.
 */
export function structuralProblems(graph: FlowGraph): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const nodes = new Map<string, FlowNode>();
  graph.nodes.forEach((node, i) => {
    if (nodes.has(node.id)) problems.push({ param: `body.graph.nodes[${i}].id`, message: `Node id ${node.id} is used twice.` });
    nodes.set(node.id, node);
  });
  const edgeIds = new Set<string>();
  const usedPorts = new Set<string>();
  graph.edges.forEach((edge, i) => {
    const at = `body.graph.edges[${i}]`;
    if (edgeIds.has(edge.id)) problems.push({ param: `${at}.id`, message: `Edge id ${edge.id} is used twice.` });
    edgeIds.add(edge.id);
    const source = nodes.get(edge.source);
    if (!source) problems.push({ param: `${at}.source`, message: `Edge ${edge.id} leaves node ${edge.source}, which is not in the graph.` });
    if (!nodes.has(edge.target)) problems.push({ param: `${at}.target`, message: `Edge ${edge.id} enters node ${edge.target}, which is not in the graph.` });
    if (edge.source === edge.target) problems.push({ param: `${at}.target`, message: `Edge ${edge.id} leads from node ${edge.source} to itself.` });
    if (!source) return;
    const ports = exitPorts(source);
    const port = edgePort(edge, source);
    if (ports.length === 0) {
      problems.push({ param: `${at}.source`, message: `Node ${source.id} (${source.type}) ends the flow; no edge may leave it.` });
    } else if (port === null) {
      problems.push({ param: `${at}.sourcePort`, message: `Edge ${edge.id} must name the port it leaves ${source.type} node ${source.id} from (${ports.join(', ')}).` });
    } else if (!ports.includes(port)) {
      problems.push({ param: `${at}.sourcePort`, message: `Node ${source.id} (${source.type}) has no port ${port}; its ports are ${ports.join(', ')}.` });
    } else {
      const key = `${source.id}\u0000${port}`;
      if (usedPorts.has(key)) problems.push({ param: `${at}.sourcePort`, message: `Port ${port} of node ${source.id} already has an edge; a port leads to one node.` });
      usedPorts.add(key);
    }
  });
  return problems;
}

/** A graph indexed for walking: the node each wired port leads to. Assumes a structurally valid graph. */
export interface IndexedGraph {
  readonly nodes: ReadonlyMap<string, FlowNode>;
  /** next.get(nodeId)?.get(port): the node that port leads to. */
  readonly next: ReadonlyMap<string, ReadonlyMap<string, FlowNode>>;
}

export function indexGraph(graph: FlowGraph): IndexedGraph {
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  const next = new Map<string, Map<string, FlowNode>>();
  for (const edge of graph.edges) {
    const source = nodes.get(edge.source);
    const target = nodes.get(edge.target);
    const port = source ? edgePort(edge, source) : null;
    if (!source || !target || !port) continue;
    let ports = next.get(source.id);
    if (!ports) next.set(source.id, (ports = new Map()));
    ports.set(port, target);
  }
  return { nodes, next };
}
