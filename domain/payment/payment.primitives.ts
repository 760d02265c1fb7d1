/**
 * The payment's recorded shape and its value types: what is stored, shown and carried by events. The behaviour over
 * it lives in the Payment aggregate (payment.ts) and the concerns it delegates to (payment-*.ts).
 */
import type { ThreeDsExit } from './three-ds-eci';
import type { Environment } from '../shared/environment';
import type { ConsumerMessage, Reversibility, RetryAction } from './decline/decline-classification';
import type { PaymentStatus } from './payment.transitions';
import type { FlowRunState } from '../flow-run/flow-run';
import type { AntifraudAssessment } from './antifraud-assessment';
import type { BankCharge, LatePayment } from './bank-charge';
import type { FingerprintSession } from './fingerprint-session';

export const METHOD_TYPES = ['card', 'debit_card', 'pix', 'boleto'] as const;
export type MethodType = (typeof METHOD_TYPES)[number];
export const CURRENCIES = ['BRL', 'USD', 'EUR', 'GBP', 'ARS', 'CLP', 'MXN'] as const;
export type Currency = (typeof CURRENCIES)[number];
export type CaptureMethod = 'automatic' | 'manual';
export type Initiator = 'customer' | 'merchant';
export const MIT_TYPES = [
  'recurring',
  'installment',
  'unscheduled',
  'reauthorization',
  'resubmission',
  'delayed_charge',
  'incremental',
  'no_show',
] as const;
export type MitType = (typeof MIT_TYPES)[number];
export type RefundStatus = 'partial' | 'full' | null;
export type FraudReviewStatus = 'pending' | 'accepted' | 'rejected' | 'merchant_decided';
export type ExpiryAction = 'notify' | 'capture' | 'void';

export const MAX_PAYMENT_AMOUNT = 9_999_999_999;

/** What may be kept about a card: never the number nor the CVV. */
export interface CardSummary {
  brand: string | null;
  bin: string | null;
  last4: string | null;
  expMonth: number | null;
  expYear: number | null;
  holderName: string | null;
}

export interface AcquirerReferences {
  nsu: string | null;
  tid: string | null;
  authorizationCode: string | null;
  acquirerPaymentId: string | null;
}

export interface PaymentDecline {
  reason: string;
  label: string;
  reversibility: Reversibility;
  retryAction: RetryAction;
  /** The phrase for the buyer (pt-BR, the market's language); both languages in consumerMessages. */
  consumerMessage: string;
  consumerMessages: ConsumerMessage;
  rawCode: string;
}

export interface FraudReview {
  status: FraudReviewStatus;
  openedAt: string;
  resolvedAt: string | null;
}

export type AttemptOutcome = 'approved' | 'declined' | 'fraud_review' | 'technical_failure' | 'timeout';

/** One authorization try on one connector account (fallback makes several per payment). */
export interface PaymentAttempt {
  id: string;
  connectorAccountId: string;
  connectorSlug: string;
  rawCode: string | null;
  /** Canonical decline reason, APPROVED, or the kind of technical failure. */
  classification: string | null;
  latencyMs: number;
  outcome: AttemptOutcome;
  message: string | null;
  startedAt: string;
  /**
   * A technical failure after the request was sent (the connection dropped before the answer): like a timeout, the
   * acquirer may have authorized, so it is reconciled. Internal (the reconciliation is what the API shows).
   */
  outcomeUnknown?: true;
  /** Only for an attempt whose outcome stayed unknown (see isOutcomeUnknown): what the background reconciliation found. */
  reconciliation?: AttemptReconciliation;
}

/** An attempt the acquirer may have acted on without saying so (a timeout, or a failure after sending). */
export function isOutcomeUnknown(attempt: PaymentAttempt): boolean {
  return attempt.outcome === 'timeout' || attempt.outcomeUnknown === true;
}

/**
 * pending: not resolved yet; not_authorized: the re-sent Authorize (same key) was declined, nothing is held;
 * voided / refunded: the acquirer had authorized (or captured) it and the amount was given back; reversal_refused:
 * the acquirer refused the reversal; unresolved: the acquirer never answered after every try (manual follow-up).
 */
export type AttemptReconciliationStatus = 'pending' | 'not_authorized' | 'voided' | 'refunded' | 'reversal_refused' | 'unresolved';

export interface AttemptReconciliation {
  status: AttemptReconciliationStatus;
  /** Re-sends tried so far. */
  tries: number;
  checkedAt: string | null;
  /** The authorization the re-send found, when there was one. */
  acquirerPaymentId: string | null;
  /** The reversal's idempotency key / operation reference. */
  operationId: string | null;
  /** Amount given back (void or refund), minor units. */
  amount: number;
  rawCode: string | null;
  message: string | null;
}

export type OperationType = 'capture' | 'void' | 'refund';

export interface PaymentOperation {
  id: string;
  type: OperationType;
  amount: number;
  /** Partial capture: the part of the authorization released back to the cardholder. */
  releasedAmount: number;
  status: 'succeeded';
  reason: string | null;
  connectorAccountId: string | null;
  acquirerReference: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
  /**
   * The Idempotency-Keys of the merchant requests that asked for this operation (internal, never shown). A request
   * repeating one of them after the operation was settled without it (by another repetition or by the settlement
   * worker) is answered with the payment instead of executing a second operation.
   */
  idempotencyKeys?: string[];
}

export interface PaymentError {
  code: string;
  message: string;
  stage: string;
  connectorAccount: { id: string; name: string } | null;
}

import type { SplitEntry } from './split-entry';

export type { SplitEntry };

export type ThreeDsStatus = 'pending' | ThreeDsExit | 'expired';

/** The payment's 3DS step (payment-three-ds.ts): pending while the buyer authenticates, then the node's exit (or expired). */
export interface ThreeDsState {
  status: ThreeDsStatus;
  requestedAt: string;
  /** The authentication deadline; null when the run has none. */
  expiresAt: string | null;
  /** The card network's ECI as the result reported it (not a secret: it says what was proven). */
  eci: string | null;
  resolvedAt: string | null;
}

/** Why a transparent checkout ended without an approval (spec: checkout.endedBy). */
export type CheckoutEndedBy = 'irreversible' | 'attempt_limit' | 'expired' | 'not_issuer_decline';

/** A transparent checkout payment's own state (rules in payment-checkout.ts). */
export interface CheckoutState {
  /**
   * The client secret: sealed (opened only to show it to the merchant while the checkout is open) and its SHA-256
   * (what a presented secret is compared with, in constant time). Never in clear, never in an event.
   */
  secret: { sealed: string; sha256: string };
  /** The account that tokenizes the card in the browser and charges it (creation rule 3). */
  tokenizationAccountId: string;
  /** The deadline of the checkout (actionExpiresAt). */
  expiresAt: string;
  attemptsUsed: number;
  attemptsMax: number;
  endedBy: CheckoutEndedBy | null;
  /** The reasons payment.checkout_not_configured was emitted for: once per reason per payment. */
  notConfiguredReasons: string[];
  /**
   * The device fingerprint session opened for the acquirer's antifraud analysis (fingerprint-session.ts); absent or
   * null when the charging account runs none (and on checkouts created before sessions were opened).
   */
  fingerprintSession?: FingerprintSession | null;
}

export interface PaymentPrimitives {
  id: string;
  organizationId: string;
  environment: Environment;
  status: PaymentStatus;
  amount: number;
  currency: Currency;
  methodType: MethodType;
  captureMethod: CaptureMethod;
  capturedAmount: number;
  refundedAmount: number;
  refundStatus: RefundStatus;
  decline: PaymentDecline | null;
  error: PaymentError | null;
  fraudReview: FraudReview | null;
  attempts: PaymentAttempt[];
  operations: PaymentOperation[];
  splits: SplitEntry[];
  /** Antifraud analyses registered on the payment, oldest first (fromPrimitives gives older stored payments an empty list). */
  antifraud: AntifraudAssessment[];
  customerId: string | null;
  paymentMethodId: string | null;
  card: CardSummary | null;
  acquirer: AcquirerReferences;
  /** The account that decided (approved or declined); null while nothing decided. */
  connectorAccountId: string | null;
  connectorSlug: string | null;
  routingStopReason: string | null;
  installments: number;
  initiator: Initiator;
  mitType: MitType | null;
  softDescriptor: string | null;
  description: string | null;
  externalId: string | null;
  metadata: Record<string, string | number | boolean | null>;
  clientIp: string | null;
  clientUserAgent: string | null;
  deviceId: string | null;
  flowId: string | null;
  /**
   * The account a card is bound to (a card tokenized there, or a saved card's account): routing calls no other.
   * Absent on payments stored before it was recorded.
   */
  pinnedConnectorAccountId?: string | null;
  /**
   * The payment's run through its flow: a published flow's graph, or direct routing's built-in one (flow null).
   * Null only for payments stored before runs were recorded.
   */
  flowRun: PaymentFlowRun | null;
  /** Pix or boleto: the charge issued at the bank (absent on card payments and before it is issued). */
  bankCharge?: BankCharge | null;
  /** Pix or boleto: money the bank reported paid after the payment was voided or expired (absent: none). */
  latePayment?: LatePayment | null;
  authorizationExpiresAt: string | null;
  expiryAction: ExpiryAction | null;
  /** When payment.authorization_expiring was emitted (once per authorization). */
  expiryNoticeAt: string | null;
  /** The acquirer refused the near-expiry capture or void: it is not asked again. */
  expiryActionRefusal: { at: string; message: string } | null;
  /** Transparent checkout payments only (payment-checkout.ts); absent or null otherwise. */
  checkout?: CheckoutState | null;
  /**
   * The client secret of a payment that awaited the buyer without a checkout (payment-client-secret.ts): sealed and
   * its SHA-256, as the checkout's. Absent or null until it first entered requires_payment_method or requires_action.
   */
  clientSecret?: { sealed: string; sha256: string } | null;
  /** The 3DS step of a card payment whose flow has a three_ds node (payment-three-ds.ts); absent or null otherwise. */
  threeDs?: ThreeDsState | null;
  createdAt: string;
  updatedAt: string;
}

export type PaymentFlowRun = FlowRunState;

export type PaymentAction = 'capture' | 'void' | 'refund' | 'confirm';

/** References of a payment no acquirer has answered yet. */
export function emptyReferences(): AcquirerReferences {
  return { nsu: null, tid: null, authorizationCode: null, acquirerPaymentId: null };
}

/** A payment amount in minor units: a positive integer no larger than MAX_PAYMENT_AMOUNT. */
export function isAmount(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n > 0 && n <= MAX_PAYMENT_AMOUNT;
}
