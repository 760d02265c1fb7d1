/**
 * A split node's data (docs/flows.md, Split): the split rules it gives a payment that carries none of its own,
 * `{splits: [{recipientId, type, value, liableForChargeback?, chargeProcessingFee?}], remainderRecipientId?}`, in
 * the request body's terms (spec, splits). Publishing checks them here; the shares are computed per payment by
 * domain/payment/split-shares.ts, since a fixed share can only be weighed against the payment's amount.
 */
import { MAX_SPLITS, type SplitRule } from '../payment/split-shares';
import type { FlowNodeData, GraphProblem } from './flow-graph';

export interface SplitNodeRules {
  readonly rules: SplitRule[];
  readonly remainderRecipientId?: string;
}

const RULE_FIELDS = new Set(['recipientId', 'type', 'value', 'liableForChargeback', 'chargeProcessingFee']);
const RECIPIENT_ID = /^.{1,64}$/s;

/** The node's rules as the runner reads them; assumes data that publishing accepted. */
export function splitNodeRules(data: FlowNodeData): SplitNodeRules {
  const rules = (Array.isArray(data.splits) ? data.splits : []) as SplitRule[];
  return typeof data.remainderRecipientId === 'string' ? { rules, remainderRecipientId: data.remainderRecipientId } : { rules };
}

/** Every recipient id the node names (its remainder taker is one of them). */
export function splitNodeRecipientIds(data: FlowNodeData): string[] {
  if (!Array.isArray(data.splits)) return [];
  return data.splits.flatMap((s) => (s && typeof (s as { recipientId?: unknown }).recipientId === 'string' ? [(s as { recipientId: string }).recipientId] : []));
}

/** What is wrong with a split node's data, each fault pointed at `at` (e.g. `graph.nodes[3]`). */
export function splitNodeDataProblems(nodeId: string, data: FlowNodeData, at: string): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const fault = (param: string, message: string) => problems.push({ param: `${at}.data${param}`, message: `Node ${nodeId}: ${message}` });
  const splits = data.splits;
  if (!Array.isArray(splits) || splits.length === 0 || splits.length > MAX_SPLITS) {
    fault('.splits', `splits lists 1 to ${MAX_SPLITS} shares, each {recipientId, type, value}.`);
    return problems;
  }
  const seen = new Set<string>();
  let percentageTotal = 0;
  splits.forEach((raw, i) => {
    const here = `.splits[${i}]`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return fault(here, 'a share is an object {recipientId, type, value}.');
    const share = raw as Record<string, unknown>;
    for (const key of Object.keys(share)) if (!RULE_FIELDS.has(key)) fault(`${here}.${key}`, `a share has no field ${key}.`);
    if (typeof share.recipientId !== 'string' || !RECIPIENT_ID.test(share.recipientId)) fault(`${here}.recipientId`, 'recipientId is a recipient id (1-64 characters).');
    else if (seen.has(share.recipientId)) fault(`${here}.recipientId`, `recipient ${share.recipientId} has more than one share; give each recipient one.`);
    else seen.add(share.recipientId);
    if (share.type !== 'percentage' && share.type !== 'fixed') fault(`${here}.type`, 'type is percentage or fixed.');
    if (typeof share.value !== 'number' || !Number.isSafeInteger(share.value) || share.value < 0) fault(`${here}.value`, 'value is a whole number >= 0 (basis points for a percentage, minor units for fixed).');
    else if (share.type === 'percentage') {
      if (share.value > 10_000) fault(`${here}.value`, `a percentage share is in basis points, at most 10000 (100 %); got ${share.value}.`);
      else percentageTotal += share.value;
    }
    for (const flag of ['liableForChargeback', 'chargeProcessingFee'] as const) {
      if (share[flag] !== undefined && typeof share[flag] !== 'boolean') fault(`${here}.${flag}`, `${flag} is true or false.`);
    }
  });
  // Percentages add up the same for every amount; fixed shares are weighed against each payment's amount when it runs.
  if (percentageTotal > 10_000) fault('.splits', `the percentage shares add up to ${percentageTotal} basis points, more than the whole payment (10000).`);
  const remainder = data.remainderRecipientId;
  if (remainder !== undefined && (typeof remainder !== 'string' || !seen.has(remainder))) fault('.remainderRecipientId', 'remainderRecipientId must be the recipientId of one of the shares.');
  return problems;
}
