import type { CardSummary, PaymentPrimitives } from '../../domain/payment/payment';
import type { AcquirerItem } from '../../domain/ports/acquirer-gateway';
import type { AuthorizeRequest } from '../../domain/ports/payment-recovery';
import type { DeepReadonly } from '../../domain/shared/deep-readonly';

/** The card a payment charges, as routing sends it (vault token or network token, and the card summary). */
export interface AuthorizeSource {
  readonly token: string;
  readonly isNetworkToken: boolean;
  readonly card: CardSummary;
}

/**
 * Authorize as sent for this payment on any account, minus credentials and idempotency key. Built once, saved with
 * the payment's routing (payment_routings), so a recovery or a reconciliation re-sends exactly the same request.
 */
export function authorizeRequest(p: DeepReadonly<PaymentPrimitives>, source: AuthorizeSource, items?: readonly AcquirerItem[]): AuthorizeRequest {
  return {
    paymentId: p.id,
    source: source.isNetworkToken
      ? { type: 'network_token', token: source.token, ...definedCard(source.card, ['brand', 'expMonth', 'expYear']) }
      : { type: 'card', token: source.token, ...definedCard(source.card, ['brand', 'bin', 'last4', 'expMonth', 'expYear', 'holderName']) },
    amount: p.amount,
    currency: p.currency,
    capture: p.captureMethod === 'automatic',
    installments: p.installments,
    initiator: p.initiator,
    ...(p.mitType ? { mitType: p.mitType } : {}),
    ...(p.softDescriptor ? { softDescriptor: p.softDescriptor } : {}),
    ...(items ? { items } : {}),
    ...(p.splits.length
      ? { splits: p.splits.map((s) => ({ recipientId: s.recipientId, amount: s.amount, liableForChargeback: s.liableForChargeback, chargeProcessingFee: s.chargeProcessingFee })) }
      : {}),
    fraudData: {
      ...(p.clientIp ? { clientIp: p.clientIp } : {}),
      ...(p.clientUserAgent ? { clientUserAgent: p.clientUserAgent } : {}),
      ...(p.deviceId ? { deviceId: p.deviceId } : {}),
    },
  };
}

function definedCard<K extends keyof CardSummary>(card: CardSummary, keys: K[]): { [P in K]?: NonNullable<CardSummary[P]> } {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (card[key] !== null && card[key] !== undefined) out[key] = card[key];
  return out as { [P in K]?: NonNullable<CardSummary[P]> };
}
