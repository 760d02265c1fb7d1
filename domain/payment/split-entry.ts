/**
 * One recipient's share of a payment (spec, Split entry). Kept apart from the payment's primitives so that what only
 * needs the share (a flow run's split node) does not depend on the whole payment.
 */
export interface SplitEntry {
  recipientId: string;
  amount: number;
  type: 'percentage' | 'fixed';
  value: number;
  liableForChargeback: boolean;
  chargeProcessingFee: boolean;
  commissionRateBps: number;
  commissionFixedAmount: number;
  netAmount: number | null;
  feeAmount: number;
  capturedAmount: number;
  refundedAmount: number;
}
