/**
 * What a split node does to a payment when the run walks it (docs/flows.md, Split). It divides the payment among
 * recipients before any acquirer is called, so the authorization carries the shares and the acquirer executes them:
 * - a payment that carries splits of its own keeps them (the merchant's request is more specific than the flow);
 * - otherwise the node's rules are computed against the payment's amount (domain/payment/split-shares.ts) and the
 *   shares are recorded on the run's step; the payment takes them when the step is saved (payment.advanceRun);
 * - a recipient deleted since publishing, or fixed shares above this payment's amount, end the run failed with
 *   `split_invalid` before any call: charging the buyer without the split the flow promised is never done silently.
 * Pure: the caller passes the recipients of the environment the node names that exist now.
 */
import { DomainError } from '../shared/domain-error';
import type { FlowNode } from '../flow/flow-graph';
import { splitNodeRecipientIds, splitNodeRules } from '../flow/split-node-data';
import type { SplitEntry } from '../payment/payment.primitives';
import { splitShares } from '../payment/split-shares';

export type SplitNodeResult =
  | { readonly kind: 'applied'; readonly splits: SplitEntry[] }
  | { readonly kind: 'kept'; readonly note: string }
  | { readonly kind: 'refused'; readonly reason: 'split_invalid'; readonly message: string };

export function decideSplitNode(node: FlowNode, input: { amount: number; hasSplits: boolean; recipientIds?: ReadonlySet<string> }): SplitNodeResult {
  if (input.hasSplits) return { kind: 'kept', note: 'the payment carries splits of its own; they are kept' };
  const missing = input.recipientIds ? splitNodeRecipientIds(node.data).filter((id) => !input.recipientIds!.has(id)) : [];
  if (missing.length) {
    return { kind: 'refused', reason: 'split_invalid', message: `Split node ${node.id} names recipient ${missing.join(', ')}, which no longer exists in this environment.` };
  }
  const { rules, remainderRecipientId } = splitNodeRules(node.data);
  try {
    return { kind: 'applied', splits: splitShares(input.amount, rules, remainderRecipientId, NODE_PARAMS) };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { kind: 'refused', reason: 'split_invalid', message: `Split node ${node.id} cannot divide this payment: ${error.message}` };
  }
}

const NODE_PARAMS = { rule: (index: number, field: string) => `data.splits[${index}].${field}`, remainder: 'data.remainderRecipientId', all: 'data.splits' };
