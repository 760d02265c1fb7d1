import type { DeepReadonly } from '../shared/deep-readonly';
import { DomainError, InvalidStateError } from '../shared/domain-error';
import type { Environment } from '../shared/environment';
import { cardNetwork, classifyDecline, type CardIdentity } from './decline/classify-decline';
import type { ConsumerMessage, Reversibility, RetryAction } from './decline/decline-classification';
import type { PaymentDomainEvent, PaymentEventType } from './payment.events';
import { PaymentLifecycleState, PaymentStatus, PaymentTrigger, nextPaymentState } from './payment.transitions';
import { cloneJson } from '../shared/clone-json';
import { executedSteps, type FlowRoutePlan, type FlowStep } from '../flow/flow-route';
import { apportionSplits } from './split-apportionment';
import { recommendationOf, type AntifraudAssessment } from './antifraud-assessment';

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
/** payment.authorization_expiring goes out this long before the capture deadline (spec, payload rule 5). */
export const EXPIRY_NOTICE_MS = 24 * 60 * 60 * 1000;

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

/** An issuer's return code as the decline table classifies it; null when the code is an approval. */
export function classifiedDecline(rawCode: string, card?: CardIdentity | null): PaymentDecline | null {
  const c = classifyDecline(rawCode, card);
  if (c.approved) return null;
  return {
    reason: c.reason,
    label: c.label,
    reversibility: c.reversibility,
    retryAction: c.retryAction,
    consumerMessage: c.consumerMessage.ptBR,
    consumerMessages: { ...c.consumerMessage },
    rawCode: c.rawCode,
  };
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
  /** The published flow that routed it: the path planned before any call, and the steps taken once it ended. */
  flowRun: PaymentFlowRun | null;
  authorizationExpiresAt: string | null;
  expiryAction: ExpiryAction | null;
  /** When payment.authorization_expiring was emitted (once per authorization). */
  expiryNoticeAt: string | null;
  /** The acquirer refused the near-expiry capture or void: it is not asked again. */
  expiryActionRefusal: { at: string; message: string } | null;
  createdAt: string;
  updatedAt: string;
}

export interface PaymentFlowRun {
  flowId: string;
  name: string;
  version: number;
  plan: FlowRoutePlan;
  /** null while routing runs. */
  steps: FlowStep[] | null;
}

export interface CreateCardPaymentInput {
  id: string;
  organizationId: string;
  environment: Environment;
  amount: number;
  currency?: Currency;
  methodType?: 'card';
  captureMethod?: CaptureMethod;
  customerId?: string | null;
  paymentMethodId?: string | null;
  card: CardSummary;
  installments?: number;
  initiator?: Initiator;
  mitType?: MitType | null;
  softDescriptor?: string | null;
  description?: string | null;
  externalId?: string | null;
  metadata?: Record<string, string | number | boolean | null>;
  clientIp?: string | null;
  clientUserAgent?: string | null;
  deviceId?: string | null;
  flowId?: string | null;
  flowRun?: Omit<PaymentFlowRun, 'steps'> | null;
  splits?: SplitEntry[];
  now: Date;
}

export type PaymentAction = 'capture' | 'void' | 'refund' | 'confirm';

/** Pre-authorization capture deadline: 7 days for Mastercard, 15 days for the other networks (spec, payload rule 5). */
export function authorizationCaptureDeadline(card: CardIdentity | null | undefined, authorizedAt: Date): Date {
  // The network by the brand sent, else by the BIN (cardNetwork); a card of unknown network gets the 15 days.
  const days = cardNetwork(card) === 'mastercard' ? 7 : 15;
  return new Date(authorizedAt.getTime() + days * 24 * 60 * 60 * 1000);
}


/** Attributes that change on every move or only grow; previousAttributes would only repeat them. */
const NOT_DIFFED = new Set<keyof PaymentPrimitives>(['updatedAt', 'attempts', 'operations', 'antifraud', 'expiryNoticeAt', 'expiryActionRefusal']);

const clone = cloneJson;

function emptyReferences(): AcquirerReferences {
  return { nsu: null, tid: null, authorizationCode: null, acquirerPaymentId: null };
}

function isAmount(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n > 0 && n <= MAX_PAYMENT_AMOUNT;
}

/**
 * The payment aggregate. Every status move goes through the transition table; each rule of the spec that is not
 * about the status alone (capture method, deadlines, amounts, fraud review) is checked here, once. Changes are
 * recorded as events with previousAttributes; `pullEvents()` hands them to the outbox writer.
 */
export class Payment {
  private events: PaymentDomainEvent[] = [];

  private constructor(private state: PaymentPrimitives) {}

  static createCard(input: CreateCardPaymentInput): Payment {
    if (!isAmount(input.amount)) {
      throw new DomainError('validation_failed', `amount must be an integer between 1 and ${MAX_PAYMENT_AMOUNT}.`, { param: 'body.amount' });
    }
    const installments = input.installments ?? 1;
    if (!Number.isInteger(installments) || installments < 1 || installments > 24) {
      throw new DomainError('validation_failed', 'installments must be an integer between 1 and 24.', { param: 'body.installments' });
    }
    if ((input.splits ?? []).length > 20) {
      throw new DomainError('validation_failed', 'A payment takes at most 20 splits.', { param: 'body.splits' });
    }
    const status = nextPaymentState('new', 'submit') as PaymentStatus;
    const now = input.now.toISOString();
    return new Payment({
      id: input.id,
      organizationId: input.organizationId,
      environment: input.environment,
      status,
      amount: input.amount,
      currency: input.currency ?? 'BRL',
      methodType: input.methodType ?? 'card',
      captureMethod: input.captureMethod ?? 'automatic',
      capturedAmount: 0,
      refundedAmount: 0,
      refundStatus: null,
      decline: null,
      error: null,
      fraudReview: null,
      attempts: [],
      operations: [],
      splits: clone(input.splits ?? []),
      antifraud: [],
      customerId: input.customerId ?? null,
      paymentMethodId: input.paymentMethodId ?? null,
      card: clone(input.card),
      acquirer: emptyReferences(),
      connectorAccountId: null,
      connectorSlug: null,
      routingStopReason: null,
      installments,
      initiator: input.initiator ?? 'customer',
      mitType: input.mitType ?? null,
      softDescriptor: input.softDescriptor ?? null,
      description: input.description ?? null,
      externalId: input.externalId ?? null,
      metadata: clone(input.metadata ?? {}),
      clientIp: input.clientIp ?? null,
      clientUserAgent: input.clientUserAgent ?? null,
      deviceId: input.deviceId ?? null,
      flowId: input.flowRun?.flowId ?? input.flowId ?? null,
      flowRun: input.flowRun ? { ...clone(input.flowRun), steps: null } : null,
      authorizationExpiresAt: null,
      expiryAction: null,
      expiryNoticeAt: null,
      expiryActionRefusal: null,
      createdAt: now,
      updatedAt: now,
    });
  }

  static fromPrimitives(primitives: PaymentPrimitives): Payment {
    return new Payment({
      ...clone(primitives),
      expiryNoticeAt: primitives.expiryNoticeAt ?? null,
      expiryActionRefusal: primitives.expiryActionRefusal ?? null,
      flowRun: primitives.flowRun ?? null,
      antifraud: primitives.antifraud ?? [],
    });
  }

  toPrimitives(): PaymentPrimitives {
    return clone(this.state);
  }

  /**
   * The state itself, read-only and not copied: for writing it out or reading it within one step (the create path
   * deep-copied a payment's state, about 1.5 kB as JSON, seven times). Keep or change a copy: `toPrimitives()`.
   */
  view(): DeepReadonly<PaymentPrimitives> {
    return this.state;
  }

  get id(): string {
    return this.state.id;
  }
  get status(): PaymentStatus {
    return this.state.status;
  }
  get amount(): number {
    return this.state.amount;
  }
  get capturedAmount(): number {
    return this.state.capturedAmount;
  }
  get refundedAmount(): number {
    return this.state.refundedAmount;
  }
  get attempts(): readonly PaymentAttempt[] {
    return this.state.attempts;
  }

  /** Returns the recorded events in order and forgets them. */
  pullEvents(): PaymentDomainEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  // ---- authorization outcome ------------------------------------------------------------------------------

  /** A try on one account; technical failures and timeouts are recorded here and routing moves on. */
  recordAttempt(attempt: PaymentAttempt): void {
    this.requireStatus('processing', 'record_attempt');
    const recorded = clone(attempt);
    // A timeout or a failure after sending leaves the outcome unknown: the acquirer may have authorized. It is
    // reconciled in the background.
    if (isOutcomeUnknown(recorded) && !recorded.reconciliation) {
      recorded.reconciliation = { status: 'pending', tries: 0, checkedAt: null, acquirerPaymentId: null, operationId: null, amount: 0, rawCode: null, message: null };
    }
    this.state.attempts.push(recorded);
  }

  /**
   * The background reconciliation of an unknown-outcome attempt progressed or ended. Any status: it changes what
   * is known about that attempt, not the payment's state (no event).
   */
  recordAttemptReconciliation(attemptId: string, reconciliation: AttemptReconciliation, now: Date): void {
    const attempt = this.state.attempts.find((a) => a.id === attemptId);
    if (!attempt) throw new DomainError('resource_missing', `No attempt ${attemptId} on payment ${this.state.id}.`);
    attempt.reconciliation = clone(reconciliation);
    this.state.updatedAt = now.toISOString();
  }

  /**
   * The acquirer approved. Automatic capture captures at once; manual capture stays authorized until the capture
   * deadline; a sale held in fraud review stays authorized whatever the capture method.
   */
  approve(input: { connectorAccountId: string; connectorSlug: string; references: Partial<AcquirerReferences>; fraudReview?: boolean; now: Date; expiryAction?: ExpiryAction }): void {
    const now = input.now.toISOString();
    const trigger: PaymentTrigger = input.fraudReview
      ? 'hold_for_fraud_review'
      : this.state.captureMethod === 'automatic'
        ? 'approve_with_capture'
        : 'approve_authorization';
    this.change(trigger, input.now, (s) => {
      s.connectorAccountId = input.connectorAccountId;
      s.connectorSlug = input.connectorSlug;
      s.acquirer = { ...emptyReferences(), ...stripUndefined(input.references) };
      s.routingStopReason = 'approved';
      if (s.flowRun) s.flowRun.steps = executedSteps(s.flowRun.plan, { accountId: input.connectorAccountId, port: 'approved' });
      if (trigger === 'approve_with_capture') {
        s.capturedAmount = s.amount;
      } else {
        s.authorizationExpiresAt = authorizationCaptureDeadline(s.card, input.now).toISOString();
        s.expiryAction = input.expiryAction ?? 'notify';
      }
      if (input.fraudReview) s.fraudReview = { status: 'pending', openedAt: now, resolvedAt: null };
    });
    this.record(trigger === 'approve_with_capture' ? 'payment.captured' : 'payment.authorized');
  }

  /** The issuer declined: the payment ends, and routing stops (an issuer answer is not a technical failure). */
  decline(input: { rawCode: string; connectorAccountId: string; connectorSlug: string; references?: Partial<AcquirerReferences>; now: Date }): void {
    const decline = classifiedDecline(input.rawCode, this.state.card);
    if (!decline) throw new DomainError('invalid_decline', `Return code ${input.rawCode} is an approval, not a decline.`);
    this.change('decline', input.now, (s) => {
      s.decline = decline;
      s.connectorAccountId = input.connectorAccountId;
      s.connectorSlug = input.connectorSlug;
      s.acquirer = { ...emptyReferences(), ...stripUndefined(input.references ?? {}) };
      s.routingStopReason = 'issuer_declined';
      if (s.flowRun) s.flowRun.steps = executedSteps(s.flowRun.plan, { accountId: input.connectorAccountId, port: 'declined' });
    });
    this.record('payment.failed');
  }

  /** No account could process it (all failed technically, none available, split_not_supported ...). */
  fail(input: { error: PaymentError; routingStopReason: string; now: Date }): void {
    this.change('fail', input.now, (s) => {
      s.error = clone(input.error);
      s.routingStopReason = input.routingStopReason;
      if (s.flowRun) s.flowRun.steps = executedSteps(s.flowRun.plan, null);
    });
    this.record('payment.failed');
  }

  // ---- merchant operations ----------------------------------------------------------------------------------

  /** Validates a capture and returns the amount that would be captured; changes nothing. */
  assertCapturable(amount: number | undefined, now: Date): number {
    this.requireTrigger('capture');
    const underReview = this.state.fraudReview?.status === 'pending';
    if (this.state.captureMethod !== 'manual' && !underReview) {
      throw new DomainError('invalid_state', 'Only payments created with captureMethod manual can be captured; this one was captured automatically.', {
        state: this.state.status,
        trigger: 'capture',
      });
    }
    if (this.state.authorizationExpiresAt && now.getTime() > Date.parse(this.state.authorizationExpiresAt)) {
      throw new DomainError('payment_not_capturable', `The authorization expired at ${this.state.authorizationExpiresAt}; it can no longer be captured.`);
    }
    const toCapture = amount ?? this.state.amount;
    if (!isAmount(toCapture)) throw new DomainError('validation_failed', 'amount must be a positive integer.', { param: 'body.amount' });
    if (toCapture > this.state.amount) {
      throw new DomainError('amount_exceeds_available', `Cannot capture ${toCapture}; only ${this.state.amount} is authorized.`, {
        param: 'body.amount',
        available: this.state.amount,
      });
    }
    return toCapture;
  }

  /**
   * Full or partial capture; a partial capture releases the rest of the authorization. The deadline is judged at
   * `requestedAt` (default `now`): a capture requested in time and confirmed by the acquirer after is recorded.
   */
  capture(input: { operationId: string; amount?: number; now: Date; requestedAt?: Date; acquirerReference?: string | null; idempotencyKeys?: string[] }): PaymentOperation {
    const amount = this.assertCapturable(input.amount, input.requestedAt ?? input.now);
    const resolvesReview = this.state.fraudReview?.status === 'pending';
    const operation: PaymentOperation = {
      id: input.operationId,
      type: 'capture',
      amount,
      releasedAmount: this.state.amount - amount,
      status: 'succeeded',
      reason: null,
      connectorAccountId: this.state.connectorAccountId,
      acquirerReference: input.acquirerReference ?? null,
      metadata: {},
      createdAt: input.now.toISOString(),
      ...(input.idempotencyKeys?.length ? { idempotencyKeys: [...input.idempotencyKeys] } : {}),
    };
    const before = this.change('capture', input.now, (s) => {
      s.capturedAmount = amount;
      s.operations.push(operation);
      if (resolvesReview) s.fraudReview = { ...s.fraudReview!, status: 'merchant_decided', resolvedAt: input.now.toISOString() };
    });
    this.record('payment.captured');
    if (resolvesReview) this.recordFraudReviewResolved(before);
    return clone(operation);
  }

  /** Validates a void; returns what it would do: cancel (nothing at the acquirer) or void (same connector). */
  assertVoidable(): 'cancel' | 'void' {
    this.requireTrigger('void');
    if (this.state.status === 'authorized') {
      const isCard = this.state.methodType === 'card' || this.state.methodType === 'debit_card';
      if (!isCard || this.state.capturedAmount > 0) {
        throw new InvalidStateError('payment', this.state.status, 'void');
      }
      return 'void';
    }
    return 'cancel';
  }

  void(input: { operationId: string; reason?: string | null; now: Date; acquirerReference?: string | null; idempotencyKeys?: string[] }): PaymentOperation {
    const kind = this.assertVoidable();
    const resolvesReview = this.state.fraudReview?.status === 'pending';
    const operation: PaymentOperation = {
      id: input.operationId,
      type: 'void',
      amount: kind === 'void' ? this.state.amount : 0,
      releasedAmount: kind === 'void' ? this.state.amount : 0,
      status: 'succeeded',
      reason: input.reason ?? null,
      connectorAccountId: kind === 'void' ? this.state.connectorAccountId : null,
      acquirerReference: input.acquirerReference ?? null,
      metadata: {},
      createdAt: input.now.toISOString(),
      ...(input.idempotencyKeys?.length ? { idempotencyKeys: [...input.idempotencyKeys] } : {}),
    };
    const before = this.change('void', input.now, (s) => {
      s.operations.push(operation);
      if (resolvesReview) s.fraudReview = { ...s.fraudReview!, status: 'merchant_decided', resolvedAt: input.now.toISOString() };
    });
    this.record(kind === 'void' ? 'payment.voided' : 'payment.canceled');
    if (resolvesReview) this.recordFraudReviewResolved(before);
    return clone(operation);
  }

  /** Validates a refund and returns the amount; boleto money cannot go back through the service. */
  assertRefundable(amount: number | undefined): number {
    if (this.state.methodType === 'boleto') {
      throw new DomainError(
        'boleto_refund_not_supported',
        'A boleto cannot be refunded automatically: return the money by Pix or bank transfer and register the refund with the customer.',
        { guidance: 'return_by_pix_or_bank_transfer' },
      );
    }
    this.requireTrigger('refund');
    const available = this.state.capturedAmount - this.state.refundedAmount;
    if (available <= 0) {
      throw new InvalidStateError('payment', 'fully refunded', 'refund');
    }
    const toRefund = amount ?? available;
    if (!isAmount(toRefund)) throw new DomainError('validation_failed', 'amount must be a positive integer.', { param: 'body.amount' });
    if (toRefund > available) {
      throw new DomainError('amount_exceeds_available', `Cannot refund ${toRefund}; only ${available} is still refundable.`, {
        param: 'body.amount',
        available,
      });
    }
    return toRefund;
  }

  /** Several partial refunds up to the captured amount; the status stays captured (contract.md 7). */
  refund(input: {
    operationId: string;
    amount?: number;
    reason?: string | null;
    metadata?: Record<string, unknown>;
    now: Date;
    acquirerReference?: string | null;
    idempotencyKeys?: string[];
  }): PaymentOperation {
    const amount = this.assertRefundable(input.amount);
    const operation: PaymentOperation = {
      id: input.operationId,
      type: 'refund',
      amount,
      releasedAmount: 0,
      status: 'succeeded',
      reason: input.reason ?? null,
      connectorAccountId: this.state.connectorAccountId,
      acquirerReference: input.acquirerReference ?? null,
      metadata: clone(input.metadata ?? {}),
      createdAt: input.now.toISOString(),
      ...(input.idempotencyKeys?.length ? { idempotencyKeys: [...input.idempotencyKeys] } : {}),
    };
    this.change('refund', input.now, (s) => {
      s.refundedAmount += amount;
      s.refundStatus = s.refundedAmount >= s.capturedAmount ? 'full' : 'partial';
      s.operations.push(operation);
    });
    this.record(this.state.refundStatus === 'full' ? 'payment.refunded' : 'payment.partially_refunded');
    return clone(operation);
  }

  // ---- pre-authorization expiry ------------------------------------------------------------------------------

  /** The notice is due 24 hours before the capture deadline of an authorized, uncaptured pre-authorization. */
  isExpiryNoticeDue(now: Date): boolean {
    const s = this.state;
    if (s.status !== 'authorized' || !s.authorizationExpiresAt || s.expiryNoticeAt || s.capturedAmount > 0) return false;
    const deadline = Date.parse(s.authorizationExpiresAt);
    return now.getTime() >= deadline - EXPIRY_NOTICE_MS && now.getTime() <= deadline;
  }

  /**
   * Emits payment.authorization_expiring once, with the action that will follow (notify only warns; capture and
   * void are then carried out by the caller through the normal capture/void operations).
   */
  noticeAuthorizationExpiring(input: { now: Date; expiryAction: ExpiryAction }): void {
    if (!this.isExpiryNoticeDue(input.now)) {
      throw new InvalidStateError('payment', this.state.status, 'authorization_expiring_notify');
    }
    this.change('authorization_expiring_notify', input.now, (s) => {
      s.expiryNoticeAt = input.now.toISOString();
      s.expiryAction = input.expiryAction;
    });
    this.record('payment.authorization_expiring');
  }

  /**
   * The acquirer refused the near-expiry capture or void (an answer, not a failure): the worker stops asking, the
   * authorization stays as it is and the merchant may still capture or void it before the deadline.
   */
  recordExpiryActionRefused(input: { now: Date; message: string }): void {
    const s = this.state;
    if (!s.expiryNoticeAt || (s.expiryAction !== 'capture' && s.expiryAction !== 'void')) {
      throw new InvalidStateError('payment', s.status, 'expiry_action_refused');
    }
    s.expiryActionRefusal = { at: input.now.toISOString(), message: input.message };
    s.updatedAt = input.now.toISOString();
  }

  // ---- acquirer fraud review ----------------------------------------------------------------------------------

  /** The provider's decision on a sale held in review; emitted once per payment. */
  resolveFraudReview(input: { decision: 'accepted' | 'rejected'; now: Date; operationId: string }): void {
    if (this.state.fraudReview?.status !== 'pending') {
      throw new InvalidStateError('fraud review', this.state.fraudReview?.status ?? 'absent', `resolve_${input.decision}`);
    }
    const now = input.now.toISOString();
    let trigger: PaymentTrigger;
    if (input.decision === 'rejected') trigger = 'fraud_review_reject';
    else trigger = this.state.captureMethod === 'automatic' ? 'fraud_review_accept_capture' : 'fraud_review_accept_keep';
    const operation: PaymentOperation | null =
      trigger === 'fraud_review_accept_keep'
        ? null
        : {
            id: input.operationId,
            type: trigger === 'fraud_review_reject' ? 'void' : 'capture',
            amount: this.state.amount,
            releasedAmount: trigger === 'fraud_review_reject' ? this.state.amount : 0,
            status: 'succeeded',
            reason: trigger === 'fraud_review_reject' ? 'fraud_review_rejected' : 'fraud_review_accepted',
            connectorAccountId: this.state.connectorAccountId,
            acquirerReference: null,
            metadata: {},
            createdAt: now,
          };
    const before = this.change(trigger, input.now, (s) => {
      s.fraudReview = { ...s.fraudReview!, status: input.decision, resolvedAt: now };
      if (trigger === 'fraud_review_accept_capture') s.capturedAmount = s.amount;
      if (operation) s.operations.push(operation);
    });
    // The state change comes first (as for a merchant decision), then the review outcome.
    if (trigger === 'fraud_review_accept_capture') this.record('payment.captured');
    if (trigger === 'fraud_review_reject') this.record('payment.voided');
    this.recordFraudReviewResolved(before);
  }

  // ---- queries ------------------------------------------------------------------------------------------------

  /** The recorded operation with this id (an operation is recorded once, whoever settles it). */
  operation(id: string): PaymentOperation | null {
    const found = this.state.operations.find((o) => o.id === id);
    return found ? clone(found) : null;
  }

  /** The recorded operation of this type that a request with this Idempotency-Key asked for, if any. */
  operationRequestedWith(type: OperationType, idempotencyKey: string): PaymentOperation | null {
    const found = this.state.operations.find((o) => o.type === type && o.idempotencyKeys?.includes(idempotencyKey));
    return found ? clone(found) : null;
  }

  /** The actions possible right now, for the full view. */
  allowedActions(now: Date): PaymentAction[] {
    const actions: PaymentAction[] = [];
    const can = (check: () => unknown) => {
      try {
        check();
        return true;
      } catch (error) {
        if (error instanceof DomainError) return false;
        throw error;
      }
    };
    if (this.state.status === 'requires_payment_method') actions.push('confirm');
    if (can(() => this.assertCapturable(undefined, now))) actions.push('capture');
    if (can(() => this.assertVoidable())) actions.push('void');
    if (can(() => this.assertRefundable(undefined))) actions.push('refund');
    return actions;
  }

  // ---- internals ----------------------------------------------------------------------------------------------

  private requireStatus(status: PaymentStatus, trigger: string): void {
    if (this.state.status !== status) throw new InvalidStateError('payment', this.state.status, trigger);
  }

  private requireTrigger(trigger: PaymentTrigger): PaymentLifecycleState {
    return nextPaymentState(this.state.status, trigger);
  }

  /** Applies a trigger through the table, then the mutation; returns the state before, for previousAttributes. */
  /**
   * Registers an antifraud analysis and emits antifraud.assessment_completed for it (spec, rule 7), a skipped one
   * included. Not a change of state: call it before the outcome it came with, so that a declined verdict's
   * payment.failed follows it.
   */
  registerAntifraudAssessment(input: {
    id: string;
    origin: AntifraudAssessment['origin'];
    provider: string;
    providerStatus: string;
    score: number | null;
    triggeredRules: readonly string[];
    connectorAccountId: string;
    now: Date;
  }): void {
    const assessment: AntifraudAssessment = {
      id: input.id,
      origin: input.origin,
      provider: input.provider,
      providerStatus: input.providerStatus,
      recommendation: recommendationOf(input.providerStatus),
      score: input.score,
      triggeredRules: [...input.triggeredRules],
      connectorAccountId: input.connectorAccountId,
      createdAt: input.now.toISOString(),
    };
    this.state.antifraud = [...this.state.antifraud, assessment];
    this.events.push({
      type: 'antifraud.assessment_completed',
      paymentId: this.state.id,
      organizationId: this.state.organizationId,
      environment: this.state.environment,
      occurredAt: input.now,
      previousAttributes: {},
      payment: clone(this.state),
      assessmentId: assessment.id,
    });
  }

  private change(trigger: PaymentTrigger, now: Date, mutate: (s: PaymentPrimitives) => void): PaymentPrimitives {
    const before = clone(this.state);
    const next = nextPaymentState(this.state.status, trigger) as PaymentStatus;
    this.state.status = next;
    mutate(this.state);
    apportionSplits(this.state.splits, this.state);
    this.state.updatedAt = now.toISOString();
    this.lastBefore = before;
    return before;
  }

  private lastBefore: PaymentPrimitives | null = null;

  private record(type: PaymentEventType, before: PaymentPrimitives | null = this.lastBefore): void {
    const previousAttributes: Record<string, unknown> = {};
    if (before) {
      for (const key of Object.keys(this.state) as Array<keyof PaymentPrimitives>) {
        if (NOT_DIFFED.has(key)) continue;
        if (changed(before[key], this.state[key])) previousAttributes[key] = clone(before[key]);
      }
    }
    this.events.push({
      type,
      paymentId: this.state.id,
      organizationId: this.state.organizationId,
      environment: this.state.environment,
      occurredAt: new Date(this.state.updatedAt),
      previousAttributes,
      payment: clone(this.state),
    });
  }

  private recordFraudReviewResolved(before: PaymentPrimitives): void {
    this.events.push({
      type: 'payment.fraud_review_resolved',
      paymentId: this.state.id,
      organizationId: this.state.organizationId,
      environment: this.state.environment,
      occurredAt: new Date(this.state.updatedAt),
      previousAttributes: { fraudReview: clone(before.fraudReview) },
      payment: clone(this.state),
    });
  }
}

/** Whether a field changed: primitives compared as they are, objects (copies, never the same reference) as JSON. */
function changed(before: unknown, after: unknown): boolean {
  if (before === after) return false;
  if (typeof before !== 'object' || typeof after !== 'object' || before === null || after === null) return true;
  return JSON.stringify(before) !== JSON.stringify(after);
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
