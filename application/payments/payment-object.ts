import type { AntifraudAssessment } from '../../domain/payment/antifraud-assessment';
import type { PaymentDomainEvent } from '../../domain/payment/payment.events';
import type { PaymentAttempt, PaymentPrimitives } from '../../domain/payment/payment';
import type { NewEvent } from '../../domain/ports/event-outbox';
import { bankChargeAction } from './bank-charge-action';
import { threeDsAction } from './three-ds-action';
import { reviewOf } from '../../domain/flow-run/flow-review';
import { publicCheckout, type CheckoutState } from '../../domain/payment/payment-checkout';
import type { CheckoutSecrets } from '../../domain/ports/checkout-secrets';
import type { SavedPaymentMethodPrimitives, PaymentMethodVerifiedEvent } from '../../domain/customer/saved-payment-method';
import type { CustomerPrimitives } from '../../domain/customer/customer';
import { awaitsBuyer, clientSecretOf } from '../../domain/payment/payment-client-secret';

export function attemptObject(a: PaymentAttempt) {
  return {
    id: a.id,
    connectorAccountId: a.connectorAccountId,
    connector: a.connectorSlug,
    rawCode: a.rawCode,
    classification: a.classification,
    outcome: a.outcome,
    latencyMs: a.latencyMs,
    message: a.message,
    createdAt: a.startedAt,
    ...(a.reconciliation ? { reconciliation: a.reconciliation } : {}),
  };
}

/** Attempts summary of the list view: count, the account that decided, fallback, last decline reason. */
export function attemptsSummary(p: PaymentPrimitives) {
  const lastDecline = [...p.attempts].reverse().find((a) => a.outcome === 'declined');
  return {
    count: p.attempts.length,
    decidedBy: p.connectorAccountId ? { connectorAccountId: p.connectorAccountId, connector: p.connectorSlug } : null,
    hasFallback: p.attempts.length > 1,
    lastDeclineReason: lastDecline?.classification ?? p.decline?.reason ?? null,
  };
}

/** The public payment resource (events' data.object and API answers share it). */
export function paymentObject(p: PaymentPrimitives) {
  return {
    object: 'payment' as const,
    id: p.id,
    status: p.status,
    amount: p.amount,
    currency: p.currency,
    methodType: p.methodType,
    captureMethod: p.captureMethod,
    capturedAmount: p.capturedAmount,
    refundedAmount: p.refundedAmount,
    refundStatus: p.refundStatus,
    clientSecret: null as string | null,
    nextAction: bankChargeAction(p) ?? threeDsAction(p),
    actionExpiresAt: p.checkout?.expiresAt ?? null,
    checkout: p.checkout ? publicCheckout(p.checkout) : null,
    // Pix or boleto money the bank reported after the payment ended unpaid: the merchant returns it or delivers.
    latePayment: p.latePayment ?? null,
    decline: p.decline,
    error: p.error,
    fraudReview: p.fraudReview ? { status: p.fraudReview.status, openedAt: p.fraudReview.openedAt, resolvedAt: p.fraudReview.resolvedAt } : null,
    // A flow's Manual review step (not the acquirer's fraud review above): pending while the run waits for the merchant.
    review: reviewOf(p.flowRun),
    authorizationExpiresAt: p.authorizationExpiresAt,
    expiryAction: p.expiryAction,
    customerId: p.customerId,
    paymentMethodId: p.paymentMethodId,
    card: p.card,
    acquirer: p.acquirer,
    connectorAccountId: p.connectorAccountId,
    connector: p.connectorSlug,
    installments: p.installments,
    initiator: p.initiator,
    mitType: p.mitType,
    softDescriptor: p.softDescriptor,
    description: p.description,
    externalId: p.externalId,
    metadata: p.metadata,
    clientIp: p.clientIp,
    deviceId: p.deviceId,
    splits: p.splits,
    attempts: p.attempts.map(attemptObject),
    hasFallback: p.attempts.length > 1,
    environment: p.environment,
    livemode: p.environment === 'live',
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

export type PaymentObject = ReturnType<typeof paymentObject>;

/** previousAttributes as the public shape names them (attempts are not diffed; the rest keeps its name). */
function publicPrevious(previous: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(previous)) {
    if (key === 'connectorSlug') out.connector = value;
    else if (key === 'routingStopReason' || key === 'flowRun') continue;
    // The checkout's internals (the sealed client secret, its digest) never leave: only its public shape.
    else if (key === 'checkout') out.checkout = value ? publicCheckout(value as CheckoutState) : null;
    else out[key] = value;
  }
  return out;
}

/**
 * flow.notification (spec: payload not shown): the webhook node's data with the flow, node and payment it came from.
 * Its id names the payment and the node, one notification per node a payment's run passes.
 */
function flowNotificationObject(event: PaymentDomainEvent) {
  const run = event.payment.flowRun;
  const nodeId = event.notification?.nodeId ?? '';
  return {
    object: 'flow_notification',
    id: `${event.paymentId}.${nodeId}`,
    paymentId: event.paymentId,
    flow: run?.flow ? { id: run.flow.flowId, name: run.flow.name, version: run.flow.version } : null,
    nodeId,
    data: event.notification?.data ?? {},
    payment: { id: event.payment.id, status: event.payment.status, amount: event.payment.amount, currency: event.payment.currency },
    createdAt: event.occurredAt.toISOString(),
  };
}

/**
 * payment_method.verified from a flow's zero_auth node (spec, payload rule 8): the payment's card, verified without a
 * charge. Its id names the payment and the node, as for flow.notification; paymentMethodId when it is a saved card.
 */
function flowVerificationObject(event: PaymentDomainEvent) {
  const v = event.verification;
  return {
    object: 'payment_method_verification',
    id: `${event.paymentId}.${v?.nodeId ?? ''}`,
    paymentId: event.paymentId,
    paymentMethodId: event.payment.paymentMethodId,
    customerId: event.payment.customerId,
    nodeId: v?.nodeId ?? '',
    card: event.payment.card,
    connectorAccountId: v?.connectorAccountId ?? null,
    verification: { status: v?.status ?? 'unavailable', verifiedAt: event.occurredAt.toISOString(), rawCode: v?.rawCode ?? null },
    createdAt: event.occurredAt.toISOString(),
  };
}

export function paymentEventToOutbox(event: PaymentDomainEvent): NewEvent {
  const scope = { organizationId: event.organizationId, environment: event.environment };
  if (event.type === 'antifraud.assessment_completed') {
    const assessment = event.payment.antifraud.find((a) => a.id === event.assessmentId);
    if (!assessment) throw new Error(`antifraud assessment ${event.assessmentId} is not on payment ${event.paymentId}`);
    return { type: event.type, scope, object: antifraudAssessmentObject(assessment, event.payment.id), previousAttributes: {} };
  }
  if (event.type === 'payment.attempt_declined') return attemptDeclinedToOutbox(event, scope);
  if (event.type === 'flow.notification') return { type: event.type, scope, object: flowNotificationObject(event), previousAttributes: {} };
  if (event.type === 'payment_method.verified') return { type: event.type, scope, object: flowVerificationObject(event), previousAttributes: {} };
  return {
    type: event.type,
    scope,
    object: paymentObject(event.payment),
    previousAttributes: publicPrevious(event.previousAttributes),
  };
}

/** An antifraud analysis as the API and antifraud.assessment_completed show it (spec, rule 7). */
export function antifraudAssessmentObject(a: AntifraudAssessment, paymentId: string) {
  return {
    object: 'antifraud_assessment' as const,
    id: a.id,
    status: 'completed' as const,
    paymentId,
    origin: a.origin,
    provider: a.provider,
    providerStatus: a.origin === 'acquirer' ? a.providerStatus : null,
    recommendation: a.recommendation,
    score: a.score,
    triggeredRules: [...a.triggeredRules],
    connectorAccountId: a.connectorAccountId,
    createdAt: a.createdAt,
  };
}

export function paymentMethodObject(m: SavedPaymentMethodPrimitives) {
  return {
    object: 'payment_method' as const,
    id: m.id,
    type: m.type,
    customerId: m.customerId,
    card: m.card,
    isNetworkToken: m.tokenReference.isNetworkToken,
    connectorAccountId: m.tokenReference.connectorAccountId,
    verification: { status: m.verification.status, verifiedAt: m.verification.verifiedAt, decline: m.verification.decline ?? null },
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

export function paymentMethodEventToOutbox(event: PaymentMethodVerifiedEvent): NewEvent {
  return {
    type: event.type,
    scope: { organizationId: event.organizationId, environment: event.environment },
    object: paymentMethodObject(event.paymentMethod),
    previousAttributes: { verification: { status: event.previousAttributes.verification.status, verifiedAt: event.previousAttributes.verification.verifiedAt } },
  };
}

export function customerObject(c: CustomerPrimitives) {
  return {
    object: 'customer' as const,
    id: c.id,
    name: c.name,
    email: c.email,
    document: c.document,
    documentType: c.documentType,
    phone: c.phone,
    birthDate: c.birthDate,
    address: c.address,
    billingAddress: c.billingAddress,
    shippingAddress: c.shippingAddress,
    metadata: c.metadata,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

/**
 * payment.attempt_declined carries exactly what payload rule 2 names: the payment's id and status, its deadline, the
 * decline and the attempt counters; previousAttributes.status is processing.
 */
function attemptDeclinedToOutbox(event: PaymentDomainEvent, scope: NewEvent['scope']): NewEvent {
  const p = event.payment;
  const d = p.decline!;
  const c = publicCheckout(p.checkout!);
  return {
    type: event.type,
    scope,
    object: {
      object: 'payment',
      id: p.id,
      status: p.status,
      actionExpiresAt: p.checkout!.expiresAt,
      decline: { reason: d.reason, label: d.label, reversibility: d.reversibility, retryAction: d.retryAction, consumerMessage: d.consumerMessage, rawCode: d.rawCode },
      checkout: { attemptsUsed: c.attemptsUsed, attemptsMax: c.attemptsMax, attemptsRemaining: c.attemptsRemaining },
    },
    previousAttributes: { status: event.previousAttributes.status },
  };
}

/**
 * The payment as the merchant sees it in an API answer: with its client secret while it awaits the buyer (a checkout,
 * a Pix or boleto, a 3DS step; spec: clientSecret while requires_payment_method or requires_action, null afterwards).
 * Events never carry it.
 */
export function merchantPaymentObject(p: PaymentPrimitives, reveal: ((paymentId: string, sealed: string) => string) | undefined) {
  const object = paymentObject(p);
  const secret = clientSecretOf(p);
  if (!awaitsBuyer(p) || !secret || !reveal) return object;
  return { ...object, clientSecret: reveal(p.id, secret.sealed) };
}

/** How merchantPaymentObject opens a sealed client secret with the installation's checkout secrets (if any). */
export function revealWith(secrets: CheckoutSecrets | undefined): ((paymentId: string, sealed: string) => string) | undefined {
  return secrets ? (paymentId, sealed) => secrets.reveal(paymentId, sealed) : undefined;
}
