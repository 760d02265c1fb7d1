/**
 * What each split share has been captured and refunded (spec, Split entry: "accumulated per share; partial capture
 * or refund divides value among recipients").
 *
 * A share's captured amount is the payment's captured total in proportion to the share's gross amount; its refunded
 * amount is the payment's refunded total in proportion to what the share had captured. Both are rounded down, so
 * the shares never add up to more than the payment moved: the cent a division leaves over stays with the merchant,
 * who keeps whatever the shares do not cover. They are derived from the payment's totals each time, not added to
 * per operation, so a run of partial refunds ends exactly at each share's captured amount when the last one refunds
 * the rest.
 */
export interface SplitShareAmounts {
  readonly amount: number;
  capturedAmount: number;
  refundedAmount: number;
}

export interface PaymentTotals {
  readonly amount: number;
  readonly capturedAmount: number;
  readonly refundedAmount: number;
}

export function apportionSplits(splits: SplitShareAmounts[], totals: PaymentTotals): void {
  for (const share of splits) {
    share.capturedAmount = proportion(totals.capturedAmount, share.amount, totals.amount);
    share.refundedAmount = proportion(totals.refundedAmount, share.capturedAmount, totals.capturedAmount);
  }
}

/** part x numerator / denominator, rounded down; in BigInt because two amounts multiplied pass 2^53. */
function proportion(part: number, numerator: number, denominator: number): number {
  if (denominator <= 0 || part <= 0 || numerator <= 0) return 0;
  return Number((BigInt(part) * BigInt(numerator)) / BigInt(denominator));
}
