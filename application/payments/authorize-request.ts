import type { CardSummary, PaymentPrimitives } from '../../domain/payment/payment';
import type { Address, CustomerPrimitives } from '../../domain/customer/customer';
import type { AcquirerAddress, AcquirerCustomer, AcquirerItem } from '../../domain/ports/acquirer-gateway';
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
/** The body's fraudAnalysis (spec, Payments body table). */
export interface FraudAnalysisInput {
  readonly fingerprintSessionId?: string;
  readonly shipping?: { readonly addressee?: string; readonly method?: string; readonly phone?: string };
  readonly isGift?: boolean;
  readonly returnsAccepted?: boolean;
  readonly merchantDefinedFields?: ReadonlyArray<{ readonly id: number; readonly value: string }>;
}

/** What the payment's primitives do not hold and acquirers take: the items, the customer and the antifraud data. */
export interface AuthorizeExtras {
  readonly items?: readonly AcquirerItem[];
  readonly customer?: CustomerPrimitives | null;
  readonly fraudAnalysis?: FraudAnalysisInput;
}

export function authorizeRequest(p: DeepReadonly<PaymentPrimitives>, source: AuthorizeSource, extras: AuthorizeExtras = {}): AuthorizeRequest {
  const { items, customer, fraudAnalysis: f } = extras;
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
    ...(customer ? { customer: acquirerCustomer(customer) } : {}),
    ...(p.splits.length
      ? { splits: p.splits.map((s) => ({ recipientId: s.recipientId, amount: s.amount, liableForChargeback: s.liableForChargeback, chargeProcessingFee: s.chargeProcessingFee })) }
      : {}),
    fraudData: {
      ...(p.clientIp ? { clientIp: p.clientIp } : {}),
      ...(p.clientUserAgent ? { clientUserAgent: p.clientUserAgent } : {}),
      ...(p.deviceId ? { deviceId: p.deviceId } : {}),
      ...(f?.fingerprintSessionId ? { fingerprintSessionId: f.fingerprintSessionId } : {}),
      ...(f?.shipping?.method ? { shippingMethod: f.shipping.method } : {}),
      ...(f?.isGift !== undefined ? { isGift: f.isGift } : {}),
      ...(f?.returnsAccepted !== undefined ? { returnsAccepted: f.returnsAccepted } : {}),
      ...(f?.merchantDefinedFields?.length ? { merchantDefinedFields: Object.fromEntries(f.merchantDefinedFields.map((m) => [String(m.id), m.value])) } : {}),
    },
  };
}

/**
 * The request as one account is sent it: with the acquirer's own antifraud analysis asked for when the account's
 * config enables it (`antifraudEnabled`, which the sandbox acquirer declares) and the customer is present (spec,
 * Payments rule 6: credit card, initiator customer; a merchant-initiated charge has nobody at the checkout to
 * analyse). The rest is the same for every account.
 */
export function requestForAccount(request: AuthorizeRequest, account: { readonly config?: Readonly<Record<string, unknown>> }): AuthorizeRequest {
  if (account.config?.antifraudEnabled !== true || request.initiator === 'merchant') return request;
  return { ...request, fraudData: { ...request.fraudData, analysisEnabled: true } };
}

/** The payment's customer as acquirers (and their antifraud providers) take it: only the fields it has. */
function acquirerCustomer(c: CustomerPrimitives): AcquirerCustomer {
  const address = (a: Address | null): AcquirerAddress | undefined =>
    a ? { postalCode: a.postalCode, line1: a.line1, streetNumber: a.streetNumber, ...(a.complement ? { complement: a.complement } : {}), neighborhood: a.neighborhood, city: a.city, state: a.state, country: 'BR' } : undefined;
  const billing = address(c.billingAddress ?? c.address);
  const shipping = address(c.shippingAddress);
  return {
    id: c.id,
    name: c.name,
    ...(c.email ? { email: c.email } : {}),
    ...(c.document ? { document: c.document } : {}),
    ...(c.phone ? { phone: c.phone } : {}),
    ...(c.birthDate ? { birthDate: c.birthDate } : {}),
    ...(billing ? { billingAddress: billing } : {}),
    ...(shipping ? { shippingAddress: shipping } : {}),
  };
}

function definedCard<K extends keyof CardSummary>(card: CardSummary, keys: K[]): { [P in K]?: NonNullable<CardSummary[P]> } {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (card[key] !== null && card[key] !== undefined) out[key] = card[key];
  return out as { [P in K]?: NonNullable<CardSummary[P]> };
}
