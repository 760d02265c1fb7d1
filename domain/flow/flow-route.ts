/**
 * Runs a published flow's routing part for one payment, before any acquirer is called: conditions, switches and
 * variables depend only on the payment, so the walk from the trigger is decided up front. Each acquirer or route
 * node on the way adds its accounts to the fallback list, and the walk follows its `error` port (a technical
 * failure or timeout there moves on to what that port leads to). The result has the same shape as direct
 * routing, a ranked fallback list, so the payment pipeline and its crash recovery treat both alike.
 * An issuer's answer ends routing: approved and declined ports lead only to approve and decline (publish-check).
 * Pure: the caller passes the accounts and, for weighted routes, a random source.
 */
import type { RoutableAccount, RoutingPaymentProjection } from '../payment/routing/direct-routing';
import { rankByCost } from '../payment/routing/direct-routing';
import { indexGraph, type FlowGraph, type FlowNode, type FlowNodeType } from './flow-graph';
import { conditionRules, evaluateRule, type FactValue, type FlowPaymentFacts, type FlowRule } from './flow-rules';

/** One node the payment went through, and the port it left by (null: the node ended the flow). */
export interface FlowStep {
  readonly nodeId: string;
  readonly type: FlowNodeType;
  readonly port: string | null;
}

/** A node of the planned path; acquirer and route nodes carry the accounts they contributed. */
export interface PlannedNode extends FlowStep {
  readonly accountIds?: readonly string[];
  /** The terminal the approved / declined port leads to, if wired. */
  readonly onApproved?: FlowStep;
  readonly onDeclined?: FlowStep;
}

export interface FlowRoutePlan {
  readonly path: readonly PlannedNode[];
}

export type FlowRoutingDecision =
  | { readonly ok: true; readonly accounts: RoutableAccount[]; readonly plan: FlowRoutePlan }
  | {
      readonly ok: false;
      readonly reason: 'declined_by_flow' | 'no_account_available' | 'split_not_supported' | 'pinned_account_unavailable' | 'flow_incomplete';
      readonly message: string;
      readonly plan: FlowRoutePlan;
    };

export interface FlowRoutingInput {
  readonly graph: FlowGraph;
  readonly payment: RoutingPaymentProjection;
  readonly facts: FlowPaymentFacts;
  /** The environment's acquirer accounts (enabled or not). */
  readonly accounts: readonly RoutableAccount[];
  /** A number in [0, 1), for weighted routes. */
  readonly random: () => number;
}

/** A route node's order: priority as listed, lowest cost, or a weighted draw without replacement. */
export function orderRouteAccounts(node: FlowNode, listed: RoutableAccount[], random: () => number): RoutableAccount[] {
  const strategy = node.data.strategy;
  if (strategy === 'lowest_cost') return rankByCost(listed);
  if (strategy !== 'weighted') return listed;
  // Weighted draw without replacement: the first account is chosen by weight, the next among the rest, and so on.
  const ids = node.data.connectorAccountIds as string[];
  const weights = node.data.weights as number[];
  const pool = listed.map((account) => ({ account, weight: weights[ids.indexOf(account.id)] ?? 1 }));
  const result: RoutableAccount[] = [];
  while (pool.length) {
    let ticket = random() * pool.reduce((n, p) => n + p.weight, 0);
    let i = 0;
    while (i < pool.length - 1 && ticket >= pool[i]!.weight) ticket -= pool[i++]!.weight;
    result.push(pool.splice(i, 1)[0]!.account);
  }
  return result;
}

const step = (node: FlowNode, port: string | null): FlowStep => ({ nodeId: node.id, type: node.type, port });

export function flowRouting(input: FlowRoutingInput): FlowRoutingDecision {
  const { graph, payment, facts } = input;
  const index = indexGraph(graph);
  const byId = new Map(input.accounts.map((a) => [a.id, a]));
  const variables = new Map<string, FactValue>();
  const path: PlannedNode[] = [];
  const candidates: RoutableAccount[] = [];
  const listed = new Set<string>();
  let named = 0;

  let node: FlowNode | undefined = graph.nodes.find((n) => n.type === 'trigger');
  const fail = (reason: Extract<FlowRoutingDecision, { ok: false }>['reason'], message: string): FlowRoutingDecision => ({ ok: false, reason, message, plan: { path } });
  // A published graph has no loops; the bound only guards against a stored one that does.
  for (let guard = 0; node && guard <= graph.nodes.length; guard++) {
    const ports = index.next.get(node.id);
    let port: string | null;
    switch (node.type) {
      case 'condition': {
        const { rules, match } = conditionRules(node.data);
        const results = (rules as FlowRule[]).map((rule) => evaluateRule(rule, facts, variables));
        port = (match === 'any' ? results.some(Boolean) : results.every(Boolean)) ? 'true' : 'false';
        break;
      }
      case 'switch': {
        const cases = (node.data.cases ?? []) as Array<{ value: unknown }>;
        const hit = cases.findIndex((c) => evaluateRule({ field: String(node!.data.field), operator: 'eq', value: c.value }, facts, variables));
        port = hit >= 0 ? `case_${hit + 1}` : 'default';
        break;
      }
      case 'set_variable':
        variables.set(String(node.data.name), node.data.value as FactValue);
        port = 'next';
        break;
      case 'acquirer':
      case 'route': {
        const ids = node.type === 'acquirer' ? [String(node.data.connectorAccountId)] : (node.data.connectorAccountIds as string[]);
        named += ids.length;
        const usable = ids.map((id) => byId.get(id)).filter((a): a is RoutableAccount => !!a && a.enabled && a.capabilities.includes(payment.methodType));
        const fresh = orderRouteAccounts(node, usable, input.random).filter((a) => !listed.has(a.id));
        for (const a of fresh) listed.add(a.id);
        candidates.push(...fresh);
        const approved = ports?.get('approved');
        const declined = ports?.get('declined');
        path.push({
          ...step(node, 'error'),
          accountIds: fresh.map((a) => a.id),
          ...(approved ? { onApproved: step(approved, null) } : {}),
          ...(declined ? { onDeclined: step(declined, null) } : {}),
        });
        node = ports?.get('error');
        continue;
      }
      case 'decline':
      case 'approve':
        path.push(step(node, null));
        node = undefined;
        continue;
      default:
        port = 'next';
    }
    path.push(step(node, port));
    node = ports?.get(port);
    if (!node) return fail('flow_incomplete', `The flow stops at ${path[path.length - 1]!.nodeId} (port ${port} leads nowhere).`);
  }

  const last = path[path.length - 1];
  if (candidates.length === 0 && named === 0) {
    return last?.type === 'decline'
      ? fail('declined_by_flow', `The flow declined the payment at node ${last.nodeId}.`)
      : fail('flow_incomplete', 'The flow reached no acquirer.');
  }
  return rankForPayment(candidates, payment, path);
}

/** The same limits direct routing applies: a pinned card's account, split capability. */
function rankForPayment(candidates: RoutableAccount[], payment: RoutingPaymentProjection, path: PlannedNode[]): FlowRoutingDecision {
  let accounts = candidates;
  const plan = { path };
  if (payment.pinnedConnectorAccountId) {
    accounts = accounts.filter((a) => a.id === payment.pinnedConnectorAccountId);
    if (!accounts.length) {
      return { ok: false, reason: 'pinned_account_unavailable', message: `The flow does not route to connector account ${payment.pinnedConnectorAccountId}, which the card names.`, plan };
    }
  }
  if (!accounts.length) return { ok: false, reason: 'no_account_available', message: `No connector account of the flow is enabled for ${payment.methodType}.`, plan };
  if (payment.hasSplits) {
    accounts = accounts.filter((a) => a.capabilities.includes('split'));
    if (!accounts.length) return { ok: false, reason: 'split_not_supported', message: 'No connector account of the flow can execute a split payment.', plan };
  }
  return { ok: true, accounts, plan };
}

/**
 * The steps the payment took, once routing ended: the planned path up to the node whose account answered, that
 * node leaving by approved or declined, and the terminal it leads to. Without an answer, every acquirer node
 * left by error (and the path ends where the plan ends).
 */
export function executedSteps(plan: FlowRoutePlan, answer: { accountId: string; port: 'approved' | 'declined' } | null): FlowStep[] {
  const steps: FlowStep[] = [];
  for (const planned of plan.path) {
    const { nodeId, type, port } = planned;
    if (answer && planned.accountIds?.includes(answer.accountId)) {
      steps.push({ nodeId, type, port: answer.port });
      const terminal = answer.port === 'approved' ? planned.onApproved : planned.onDeclined;
      if (terminal) steps.push(terminal);
      return steps;
    }
    steps.push({ nodeId, type, port });
  }
  return steps;
}
