/**
 * The order in which a route node tries its accounts (contract.md 7: `strategy` priority, weighted or lowest_cost).
 * Pure: the caller passes the usable accounts and, for weighted routes, a random source.
 */
import { rankByCost, type RoutableAccount } from '../payment/routing/direct-routing';
import type { FlowNode } from '../flow/flow-graph';

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
