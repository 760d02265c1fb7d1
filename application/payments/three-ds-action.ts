/**
 * A card payment's nextAction while the buyer has to authenticate (contract.md 5: `{type:"three_ds", ...}`): the
 * deadline, and the route the result goes to. Null once the payment moved on.
 */
import type { PaymentPrimitives } from '../../domain/payment/payment';
import { awaitsThreeDs } from '../../domain/payment/payment-three-ds';

export interface ThreeDsAction {
  type: 'three_ds';
  /** The authentication deadline; after it the result is refused with 410 and the payment is closed. */
  expiresAt: string | null;
  /** Where the buyer's page sends the result (Service-Client-Secret, Idempotency-Key). */
  resultUrl: string;
}

export function threeDsAction(p: Pick<PaymentPrimitives, 'id' | 'status' | 'threeDs'>): ThreeDsAction | null {
  if (!awaitsThreeDs(p)) return null;
  return { type: 'three_ds', expiresAt: p.threeDs?.expiresAt ?? null, resultUrl: `/v1/public/payments/${p.id}/three-ds` };
}
