/**
 * A payment's split shares in minor units, from the split rules a request or a flow's split node gives (spec, Split
 * entry). A percentage share (value in basis points) is rounded down; the cents the rounding leaves over, all
 * percentage shares together, go to the share of `remainderRecipientId` when given (which must be one of the
 * recipients), else stay with the merchant like the rest of the amount the shares do not cover. Pure.
 */
import { DomainError } from '../shared/domain-error';
import type { SplitEntry } from './payment.primitives';

export interface SplitRule {
  readonly recipientId: string;
  readonly type: 'percentage' | 'fixed';
  readonly value: number;
  readonly liableForChargeback?: boolean;
  readonly chargeProcessingFee?: boolean;
}

/** Where a faulty rule is pointed at in the error: the request's body by default. */
export interface SplitRuleParams {
  rule(index: number, field: keyof SplitRule): string;
  readonly remainder: string;
  readonly all: string;
}

export const BODY_SPLIT_PARAMS: SplitRuleParams = {
  rule: (index, field) => `body.splits[${index}].${field}`,
  remainder: 'body.splitRemainderRecipientId',
  all: 'body.splits',
};

/** The spec's limit of splits per payment. */
export const MAX_SPLITS = 20;

export function splitShares(amount: number, rules: readonly SplitRule[] | undefined, remainderRecipientId?: string, params: SplitRuleParams = BODY_SPLIT_PARAMS): SplitEntry[] {
  const list = rules ?? [];
  const seen = new Set<string>();
  list.forEach((s, index) => {
    if (seen.has(s.recipientId)) throw new DomainError('validation_failed', `Recipient ${s.recipientId} has more than one split; give each recipient one share.`, { param: params.rule(index, 'recipientId') });
    seen.add(s.recipientId);
    if (s.type === 'percentage' && s.value > 10_000) {
      throw new DomainError('validation_failed', `A percentage share is in basis points, at most 10000 (100 %); got ${s.value}.`, { param: params.rule(index, 'value') });
    }
  });
  const entries = list.map((s) => ({
    recipientId: s.recipientId,
    type: s.type,
    value: s.value,
    amount: s.type === 'fixed' ? s.value : Math.floor((amount * s.value) / 10_000),
    liableForChargeback: s.liableForChargeback ?? false,
    chargeProcessingFee: s.chargeProcessingFee ?? false,
    commissionRateBps: 0,
    commissionFixedAmount: 0,
    netAmount: null,
    feeAmount: 0,
    capturedAmount: 0,
    refundedAmount: 0,
  }));
  if (remainderRecipientId !== undefined) {
    const taker = entries.find((e) => e.recipientId === remainderRecipientId);
    if (!taker) throw new DomainError('validation_failed', 'splitRemainderRecipientId must be the recipientId of one of the splits.', { param: params.remainder });
    const percentages = list.filter((s) => s.type === 'percentage');
    const exact = Math.floor((amount * percentages.reduce((n, s) => n + s.value, 0)) / 10_000);
    const rounded = entries.filter((e) => e.type === 'percentage').reduce((n, e) => n + e.amount, 0);
    taker.amount += exact - rounded;
  }
  const total = entries.reduce((n, e) => n + e.amount, 0);
  if (total > amount) throw new DomainError('validation_failed', 'The split shares add up to more than the payment amount.', { param: params.all });
  return entries;
}
