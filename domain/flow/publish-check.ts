/**
 * What publishing asks of a graph (contract.md 4: publish validates the graph): everything the runner needs to
 * take a payment from the trigger to an outcome without guessing. Pure; the caller passes the environment's
 * connector accounts. Problems are returned as data, one per fault, so the builder can mark each of them.
 */
import { FLOW_TRIGGER_EVENTS, indexGraph, exitPorts, structuralProblems, type FlowGraph, type FlowNode, type FlowNodeType, type FlowTriggerEvent, type GraphProblem } from './flow-graph';
import { conditionRules, ruleProblem } from './flow-rules';
import { splitNodeDataProblems, splitNodeRecipientIds } from './split-node-data';

/**
 * The trigger events a published flow is run for: every one (payments of invoices, renewals and retries run the flow of
 * their trigger; manual flows run on POST /v1/flows/{id}/run). See docs/flows.md.
 */
export const RUNNABLE_TRIGGER_EVENTS: readonly FlowTriggerEvent[] = FLOW_TRIGGER_EVENTS;

/** The node types the runner executes in this version; a draft may hold the others, publishing refuses them. */
export const RUNNABLE_NODE_TYPES: readonly FlowNodeType[] = ['trigger', 'condition', 'switch', 'set_variable', 'acquirer', 'route', 'three_ds', 'delay', 'review', 'webhook', 'retry', 'antifraud', 'zero_auth', 'capture', 'split', 'approve', 'decline'];

/** A delay node waits 1 minute to 30 days (data.minutes) on a durable timer before it leads on. */
export const MAX_DELAY_MINUTES = 43_200;

/** A retry node tries again 1 to 20 times (data.maxAttempts), each after 1 minute to 30 days (data.intervalMinutes). */
export const MAX_RETRY_ATTEMPTS = 20;
export const MAX_RETRY_INTERVAL_MINUTES = 43_200;

/** A webhook node's data (the flow.notification's content) as JSON. */
export const MAX_WEBHOOK_DATA_CHARS = 4_096;

export const ROUTE_STRATEGIES = ['priority', 'weighted', 'lowest_cost'] as const;
export type RouteStrategy = (typeof ROUTE_STRATEGIES)[number];

export const MAX_ROUTE_ACCOUNTS = 20;
export const MAX_SWITCH_CASES = 50;

export interface AccountFacts {
  readonly kind: 'acquirer' | 'antifraud';
  /**
   * The account's effective capabilities (its adapter's), when the caller knows them: a three_ds node's account needs
   * three_ds, a zero_auth node's zero_auth, and the acquirer and route accounts after a split node split. Unknown (the
   * adapter cannot be described now), nothing is refused on their grounds: the node checks again when it runs.
   */
  readonly capabilities?: readonly string[];
}

/**
 * What a node asks of the accounts it names, by node type. Acquirer and route nodes ask nothing of their own: a flow of
 * payment.authorization_requested routes Pix and boleto payments too, and an account lacking the payment's method is
 * skipped when the payment runs; after a split node they need split (splitPlacement).
 */
const NODE_NEEDS: Partial<Record<FlowNodeType, { readonly capability: string; readonly doing: string }>> = {
  three_ds: { capability: 'three_ds', doing: 'cannot authenticate cardholders (three_ds)' },
  zero_auth: { capability: 'zero_auth', doing: 'cannot verify cards (zero_auth)' },
};

/** Every connector account id the graph names (acquirer, route and the other account-bearing nodes). */
export function accountIdsOf(graph: FlowGraph): string[] {
  const ids = new Set<string>();
  for (const node of graph.nodes) {
    if (typeof node.data.connectorAccountId === 'string') ids.add(node.data.connectorAccountId);
    if (Array.isArray(node.data.connectorAccountIds)) for (const id of node.data.connectorAccountIds) if (typeof id === 'string') ids.add(id);
  }
  return [...ids];
}

/** Every recipient id the graph's split nodes name (publishing checks they exist in the environment). */
export function splitRecipientIdsOf(graph: FlowGraph): string[] {
  return [...new Set(graph.nodes.flatMap((node) => (node.type === 'split' ? splitNodeRecipientIds(node.data) : [])))];
}

/**
 * Nodes after which a split node may not stand: they call an acquirer or wait, so a split met after them would come
 * after the authorization (or after the payment is saved and its request sent), too late for the acquirer to execute.
 */
const SPLIT_TOO_LATE_AFTER: readonly FlowNodeType[] = ['acquirer', 'route', 'three_ds', 'review', 'delay', 'retry', 'capture'];

const VARIABLE_NAME = /^[A-Za-z0-9_]{1,64}$/;
const isScalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/**
 * `recipients`: the recipients of the environment among those the split nodes name (splitRecipientIdsOf); absent, a
 * graph with split nodes is refused, as nobody could say they exist.
 */
export function publishProblems(graph: FlowGraph, triggerEvent: FlowTriggerEvent, accounts: ReadonlyMap<string, AccountFacts>, recipients?: ReadonlySet<string>): GraphProblem[] {
  if (!RUNNABLE_TRIGGER_EVENTS.includes(triggerEvent)) {
    return [{ param: 'triggerEvent', message: `Flows for ${triggerEvent} cannot be published in this version: only ${RUNNABLE_TRIGGER_EVENTS.join(', ')} flows are run.` }];
  }
  const structural = structuralProblems(graph);
  if (structural.length) return structural.map((p) => ({ ...p, param: p.param.replace(/^body\./, '') }));

  const problems: GraphProblem[] = [];
  const at = (node: FlowNode) => `graph.nodes[${graph.nodes.indexOf(node)}]`;
  const triggers = graph.nodes.filter((n) => n.type === 'trigger');
  if (triggers.length !== 1) return [{ param: 'graph.nodes', message: `A flow has exactly one trigger node; this one has ${triggers.length}.` }];

  const index = indexGraph(graph);
  const next = (node: FlowNode) => index.next.get(node.id) ?? new Map<string, FlowNode>();
  // Known capabilities only: an account whose adapter could not be described lacks nothing here.
  const lacks = (id: string, capability: string): boolean => accounts.get(id)?.capabilities?.includes(capability) === false;
  const account = (node: FlowNode, id: unknown, param: string): void => {
    const fault = (message: string) => problems.push({ param: `${at(node)}.${param}`, message });
    if (typeof id !== 'string' || !id) fault(`Node ${node.id} (${node.type}) needs a connector account id.`);
    else if (!accounts.has(id)) fault(`Node ${node.id} names connector account ${id}, which does not exist in this environment.`);
    else if (accounts.get(id)!.kind !== 'acquirer') fault(`Node ${node.id} names connector account ${id}, which is not an acquirer.`);
    else {
      const need = NODE_NEEDS[node.type];
      if (need && lacks(id, need.capability)) fault(`Node ${node.id} names connector account ${id}, which ${need.doing}.`);
    }
  };

  for (const node of graph.nodes) {
    if (!RUNNABLE_NODE_TYPES.includes(node.type)) {
      problems.push({ param: `${at(node)}.type`, message: `Node ${node.id}: ${node.type} nodes cannot run in this version; published flows use ${RUNNABLE_NODE_TYPES.join(', ')}.` });
      continue;
    }
    const ports = next(node);
    const requireWired = (port: string) => {
      if (!ports.has(port)) problems.push({ param: `${at(node)}`, message: `Port ${port} of node ${node.id} (${node.type}) leads nowhere; connect it.` });
    };
    switch (node.type) {
      case 'trigger':
        requireWired('next');
        break;
      case 'set_variable':
        if (typeof node.data.name !== 'string' || !VARIABLE_NAME.test(node.data.name)) problems.push({ param: `${at(node)}.data.name`, message: `Node ${node.id}: name is 1-64 letters, digits or _.` });
        if (!isScalar(node.data.value)) problems.push({ param: `${at(node)}.data.value`, message: `Node ${node.id}: value is a string, number or boolean.` });
        requireWired('next');
        break;
      case 'condition': {
        const { rules } = conditionRules(node.data);
        if (rules.length === 0) problems.push({ param: `${at(node)}.data.rules`, message: `Node ${node.id}: a condition needs at least one rule.` });
        rules.forEach((rule, i) => {
          const problem = ruleProblem(rule);
          if (problem) problems.push({ param: `${at(node)}.data${Array.isArray(node.data.rules) ? `.rules[${i}]` : ''}`, message: `Node ${node.id}: ${problem}.` });
        });
        requireWired('true');
        requireWired('false');
        break;
      }
      case 'switch': {
        const cases = node.data.cases;
        if (!Array.isArray(cases) || cases.length === 0 || cases.length > MAX_SWITCH_CASES) {
          problems.push({ param: `${at(node)}.data.cases`, message: `Node ${node.id}: a switch has 1 to ${MAX_SWITCH_CASES} cases, each {value}.` });
          break;
        }
        cases.forEach((c, i) => {
          const problem = ruleProblem({ field: node.data.field, operator: 'eq', value: (c as { value?: unknown } | null)?.value });
          if (problem) problems.push({ param: `${at(node)}.data.cases[${i}]`, message: `Node ${node.id}: ${problem}.` });
        });
        for (const port of exitPorts(node)) requireWired(port);
        break;
      }
      case 'acquirer':
        account(node, node.data.connectorAccountId, 'data.connectorAccountId');
        outcomePorts(node);
        break;
      case 'route':
        routeData(node);
        outcomePorts(node);
        break;
      case 'three_ds':
        // The account that authenticates (an acquirer with the three_ds capability, when its adapter says what it can
        // do; the node checks again when it runs); every exit is wired, so a result never leaves the run nowhere.
        account(node, node.data.connectorAccountId, 'data.connectorAccountId');
        for (const port of ['authenticated', 'failed', 'unavailable']) requireWired(port);
        break;
      case 'antifraud':
        // The analysis is made by an antifraud account of the environment; every verdict, error included, leads on.
        antifraudAccount(node);
        for (const port of ['approve', 'review', 'decline', 'error']) requireWired(port);
        break;
      case 'zero_auth':
        account(node, node.data.connectorAccountId, 'data.connectorAccountId');
        for (const port of ['valid', 'invalid', 'unavailable']) requireWired(port);
        break;
      case 'capture':
        // Only an authorization can be captured: see capturesAuthorization below.
        requireWired('next');
        break;
      case 'split': {
        // The shares' rules here; where the node stands and what the accounts after it can do: see splitPlacement.
        const faults = splitNodeDataProblems(node.id, node.data, at(node));
        problems.push(...faults);
        if (faults.length === 0) {
          (node.data.splits as Array<{ recipientId: string }>).forEach((share, i) => {
            if (!recipients?.has(share.recipientId)) problems.push({ param: `${at(node)}.data.splits[${i}].recipientId`, message: `Node ${node.id} names recipient ${share.recipientId}, which does not exist in this environment.` });
          });
        }
        requireWired('next');
        break;
      }
      case 'delay': {
        const minutes = node.data.minutes;
        if (typeof minutes !== 'number' || !Number.isInteger(minutes) || minutes < 1 || minutes > MAX_DELAY_MINUTES) {
          problems.push({ param: `${at(node)}.data.minutes`, message: `Node ${node.id}: minutes is a whole number from 1 to ${MAX_DELAY_MINUTES}.` });
        }
        requireWired('next');
        break;
      }
      case 'webhook':
        // Its data is the notification's content: kept small, like a webhook payload should be.
        if (JSON.stringify(node.data).length > MAX_WEBHOOK_DATA_CHARS) problems.push({ param: `${at(node)}.data`, message: `Node ${node.id}: data is at most ${MAX_WEBHOOK_DATA_CHARS} characters as JSON.` });
        requireWired('next');
        break;
      case 'review':
        // The merchant's decision leads on either way; a port left open would end the run as incomplete.
        requireWired('approved');
        requireWired('declined');
        break;
      case 'retry': {
        const { maxAttempts, intervalMinutes } = node.data;
        if (typeof maxAttempts !== 'number' || !Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > MAX_RETRY_ATTEMPTS) {
          problems.push({ param: `${at(node)}.data.maxAttempts`, message: `Node ${node.id}: maxAttempts is a whole number from 1 to ${MAX_RETRY_ATTEMPTS}.` });
        }
        if (typeof intervalMinutes !== 'number' || !Number.isInteger(intervalMinutes) || intervalMinutes < 1 || intervalMinutes > MAX_RETRY_INTERVAL_MINUTES) {
          problems.push({ param: `${at(node)}.data.intervalMinutes`, message: `Node ${node.id}: intervalMinutes is a whole number from 1 to ${MAX_RETRY_INTERVAL_MINUTES}.` });
        }
        requireWired('retry');
        requireWired('exhausted');
        const again = ports.get('retry');
        if (again && again.type !== 'acquirer' && again.type !== 'route') {
          problems.push({ param: `${at(node)}`, message: `Port retry of node ${node.id} must lead back to an acquirer or route node.` });
        }
        break;
      }
      default:
        break;
    }
  }

  function antifraudAccount(node: FlowNode): void {
    const id = node.data.connectorAccountId;
    const param = `${at(node)}.data.connectorAccountId`;
    if (typeof id !== 'string' || !id) problems.push({ param, message: `Node ${node.id} (antifraud) needs a connector account id.` });
    else if (!accounts.has(id)) problems.push({ param, message: `Node ${node.id} names connector account ${id}, which does not exist in this environment.` });
    else if (accounts.get(id)!.kind !== 'antifraud') problems.push({ param, message: `Node ${node.id} names connector account ${id}, which is not an antifraud account.` });
  }

  function outcomePorts(node: FlowNode): void {
    const ports = next(node);
    const approved = ports.get('approved');
    const declined = ports.get('declined');
    // A capture node may stand between: approved -> capture -> approve captures the authorization first.
    const authorizedTarget = approved?.type === 'capture' ? next(approved).get('next') : approved;
    if (approved && authorizedTarget?.type !== 'approve') {
      problems.push({ param: at(node), message: `Port approved of node ${node.id} must lead to an approve node, or to a capture node leading to one (unwired, it approves).` });
    }
    // A decline ends the sale unless a retry node tries the card again later (within its brand's budget).
    if (declined && declined.type !== 'decline' && declined.type !== 'retry') problems.push({ param: at(node), message: `Port declined of node ${node.id} must lead to a decline or retry node (unwired, it declines).` });
  }

  function routeData(node: FlowNode): void {
    const { strategy, connectorAccountIds: ids, weights } = node.data;
    if (!ROUTE_STRATEGIES.includes(strategy as RouteStrategy)) problems.push({ param: `${at(node)}.data.strategy`, message: `Node ${node.id}: strategy is one of ${ROUTE_STRATEGIES.join(', ')}.` });
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_ROUTE_ACCOUNTS) {
      problems.push({ param: `${at(node)}.data.connectorAccountIds`, message: `Node ${node.id}: connectorAccountIds lists 1 to ${MAX_ROUTE_ACCOUNTS} accounts.` });
      return;
    }
    if (new Set(ids).size !== ids.length) problems.push({ param: `${at(node)}.data.connectorAccountIds`, message: `Node ${node.id}: an account is listed twice.` });
    ids.forEach((id, i) => account(node, id, `data.connectorAccountIds[${i}]`));
    if (strategy === 'weighted') {
      const ok = Array.isArray(weights) && weights.length === ids.length && weights.every((w) => Number.isInteger(w) && (w as number) > 0 && (w as number) <= 1000);
      if (!ok) problems.push({ param: `${at(node)}.data.weights`, message: `Node ${node.id}: weighted routing needs one whole weight (1-1000) per account, in the same order.` });
    }
  }

  // Approve means "authorized": only an acquirer's approved port may lead to it.
  for (const node of graph.nodes) {
    for (const [port, target] of next(node)) {
      const authorizes = (node.type === 'acquirer' || node.type === 'route') && port === 'approved';
      // A capture node is itself reached only from an approved port (checked below).
      const capturesAuthorization = node.type === 'capture' && port === 'next';
      if (target.type === 'approve' && !authorizes && !capturesAuthorization) {
        problems.push({ param: at(target), message: `Approve node ${target.id} is reached from ${node.id} (${port}) without an authorization; only an acquirer's approved port leads to approve.` });
      }
    }
  }

  // A capture node captures the run's authorization: only an acquirer's approved port may lead to it.
  for (const node of graph.nodes) {
    for (const [port, target] of next(node)) {
      if (target.type === 'capture' && !((node.type === 'acquirer' || node.type === 'route') && port === 'approved')) {
        problems.push({ param: at(target), message: `Capture node ${target.id} is reached from ${node.id} (${port}) before any authorization; only an acquirer's approved port leads to capture.` });
      }
    }
  }

  splitPlacement();
  reachabilityAndCycles();
  return problems;

  /**
   * A split node stands before every acquirer call and wait (its shares travel with the authorization), and the
   * accounts of the acquirer and route nodes after it can execute splits, when their capabilities are known.
   */
  function splitPlacement(): void {
    const reachableFrom = (starts: readonly FlowNode[]): Set<string> => {
      const seen = new Set<string>();
      const stack = starts.flatMap((n) => [...next(n).values()]);
      while (stack.length) {
        const node = stack.pop()!;
        if (seen.has(node.id)) continue;
        seen.add(node.id);
        stack.push(...next(node).values());
      }
      return seen;
    };
    const splits = graph.nodes.filter((n) => n.type === 'split');
    if (splits.length === 0) return;
    const late = reachableFrom(graph.nodes.filter((n) => SPLIT_TOO_LATE_AFTER.includes(n.type)));
    for (const node of splits) {
      if (late.has(node.id)) problems.push({ param: at(node), message: `Split node ${node.id} can be reached after an acquirer call or a wait (${SPLIT_TOO_LATE_AFTER.join(', ')}); place it before them, so the authorization carries the split.` });
    }
    const afterSplit = reachableFrom(splits);
    for (const node of graph.nodes) {
      if (!afterSplit.has(node.id) || (node.type !== 'acquirer' && node.type !== 'route')) continue;
      const named: Array<[unknown, string]> =
        node.type === 'acquirer'
          ? [[node.data.connectorAccountId, 'data.connectorAccountId']]
          : (Array.isArray(node.data.connectorAccountIds) ? node.data.connectorAccountIds : []).map((id, i) => [id, `data.connectorAccountIds[${i}]`]);
      for (const [id, param] of named) {
        if (typeof id === 'string' && lacks(id, 'split')) problems.push({ param: `${at(node)}.${param}`, message: `Node ${node.id} follows a split node but names connector account ${id}, which cannot execute splits.` });
      }
    }
  }

  function reachabilityAndCycles(): void {
    const state = new Map<string, 'open' | 'done'>();
    const visit = (node: FlowNode, path: string[]): void => {
      state.set(node.id, 'open');
      for (const target of next(node).values()) {
        const s = state.get(target.id);
        if (s === 'open') {
          // A loop is allowed only through a retry node: its maxAttempts bounds it and its timer paces it.
          const loop = [...path.slice(path.indexOf(target.id)), node.id];
          if (loop.some((id) => index.nodes.get(id)?.type === 'retry')) continue;
          problems.push({ param: at(target), message: `The flow loops: ${[...loop, target.id].join(' -> ')}; only a retry node may lead back.` });
        } else if (s === undefined) {
          visit(target, [...path, node.id]);
        }
      }
      state.set(node.id, 'done');
    };
    visit(triggers[0]!, []);
    for (const node of graph.nodes) {
      if (!state.has(node.id)) problems.push({ param: at(node), message: `Node ${node.id} cannot be reached from the trigger.` });
    }
  }
}
