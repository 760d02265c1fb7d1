/** The authorization outcome of a payment: the tries on each account, then approved, declined or failed. */
import { DomainError } from '../shared/domain-error';
import { cloneJson as clone } from '../shared/clone-json';
import { classifyDecline, type CardIdentity } from './decline/classify-decline';
import { authorizationCaptureDeadline } from './payment-expiry';
import type { PaymentInternals } from './payment-internals';
import {
  emptyReferences,
  isOutcomeUnknown,
  type AcquirerReferences,
  type AttemptReconciliation,
  type ExpiryAction,
  type PaymentAttempt,
  type PaymentDecline,
  type PaymentError,
} from './payment.primitives';
import type { PaymentTrigger } from './payment.transitions';

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

export interface ApproveInput {
  connectorAccountId: string;
  connectorSlug: string;
  references: Partial<AcquirerReferences>;
  fraudReview?: boolean;
  now: Date;
  expiryAction?: ExpiryAction;
}

export interface DeclineInput {
  rawCode: string;
  connectorAccountId: string;
  connectorSlug: string;
  references?: Partial<AcquirerReferences>;
  /** Why routing stopped after the decline when not at the issuer's word alone (a retry node exhausted: retry-node.ts). */
  routingStopReason?: string;
  now: Date;
}

export interface FailInput {
  error: PaymentError;
  routingStopReason: string;
  now: Date;
}

/** A try on one account; technical failures and timeouts are recorded here and routing moves on. */
export function recordAttempt(payment: PaymentInternals, attempt: PaymentAttempt): void {
  payment.requireStatus('processing', 'record_attempt');
  const recorded = clone(attempt);
  // A timeout or a failure after sending leaves the outcome unknown: the acquirer may have authorized. It is
  // reconciled in the background.
  if (isOutcomeUnknown(recorded) && !recorded.reconciliation) {
    recorded.reconciliation = { status: 'pending', tries: 0, checkedAt: null, acquirerPaymentId: null, operationId: null, amount: 0, rawCode: null, message: null };
  }
  payment.state.attempts.push(recorded);
}

/**
 * The background reconciliation of an unknown-outcome attempt progressed or ended. Any status: it changes what
 * is known about that attempt, not the payment's state (no event).
 */
export function recordAttemptReconciliation(payment: PaymentInternals, attemptId: string, reconciliation: AttemptReconciliation, now: Date): void {
  const attempt = payment.state.attempts.find((a) => a.id === attemptId);
  if (!attempt) throw new DomainError('resource_missing', `No attempt ${attemptId} on payment ${payment.state.id}.`);
  attempt.reconciliation = clone(reconciliation);
  payment.state.updatedAt = now.toISOString();
}

/**
 * The acquirer approved. Automatic capture captures at once; manual capture stays authorized until the capture
 * deadline; a sale held in fraud review stays authorized whatever the capture method.
 */
export function approve(payment: PaymentInternals, input: ApproveInput): void {
  const now = input.now.toISOString();
  const trigger: PaymentTrigger = input.fraudReview
    ? 'hold_for_fraud_review'
    : payment.state.captureMethod === 'automatic'
      ? 'approve_with_capture'
      : 'approve_authorization';
  payment.change(trigger, input.now, (s) => {
    s.connectorAccountId = input.connectorAccountId;
    s.connectorSlug = input.connectorSlug;
    s.acquirer = { ...emptyReferences(), ...stripUndefined(input.references) };
    s.routingStopReason = 'approved';
    if (trigger === 'approve_with_capture') {
      s.capturedAmount = s.amount;
    } else {
      s.authorizationExpiresAt = authorizationCaptureDeadline(s.card, input.now).toISOString();
      s.expiryAction = input.expiryAction ?? 'notify';
    }
    if (input.fraudReview) s.fraudReview = { status: 'pending', openedAt: now, resolvedAt: null };
  });
  payment.record(trigger === 'approve_with_capture' ? 'payment.captured' : 'payment.authorized');
}

/** The issuer declined: the payment ends, and routing stops (an issuer answer is not a technical failure). */
export function decline(payment: PaymentInternals, input: DeclineInput): void {
  const decline = classifiedDecline(input.rawCode, payment.state.card);
  if (!decline) throw new DomainError('invalid_decline', `Return code ${input.rawCode} is an approval, not a decline.`);
  payment.change('decline', input.now, (s) => {
    s.decline = decline;
    s.connectorAccountId = input.connectorAccountId;
    s.connectorSlug = input.connectorSlug;
    s.acquirer = { ...emptyReferences(), ...stripUndefined(input.references ?? {}) };
    s.routingStopReason = input.routingStopReason ?? 'issuer_declined';
  });
  payment.record('payment.failed');
}

/** No account could process it (all failed technically, none available, split_not_supported ...). */
export function fail(payment: PaymentInternals, input: FailInput): void {
  payment.change('fail', input.now, (s) => {
    s.error = clone(input.error);
    s.routingStopReason = input.routingStopReason;
  });
  payment.record('payment.failed');
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
