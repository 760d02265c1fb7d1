/**
 * The merchant's money operations on a payment: capture, void (or cancel) and refund, each with the check that
 * tells, without changing anything, whether it may run and for what amount.
 */
import { DomainError, InvalidStateError } from '../shared/domain-error';
import { cloneJson as clone } from '../shared/clone-json';
import { endWaitingRun } from '../flow-run/flow-run';
import type { PaymentInternals } from './payment-internals';
import { isAmount, type PaymentOperation } from './payment.primitives';

export interface CaptureInput {
  operationId: string;
  amount?: number;
  now: Date;
  requestedAt?: Date;
  acquirerReference?: string | null;
  idempotencyKeys?: string[];
}

export interface VoidInput {
  operationId: string;
  reason?: string | null;
  now: Date;
  acquirerReference?: string | null;
  idempotencyKeys?: string[];
}

export interface RefundInput {
  operationId: string;
  amount?: number;
  reason?: string | null;
  metadata?: Record<string, unknown>;
  now: Date;
  acquirerReference?: string | null;
  idempotencyKeys?: string[];
}

/** Validates a capture and returns the amount that would be captured; changes nothing. */
export function assertCapturable(payment: PaymentInternals, amount: number | undefined, now: Date): number {
  payment.requireTrigger('capture');
  const underReview = payment.state.fraudReview?.status === 'pending';
  if (payment.state.captureMethod !== 'manual' && !underReview) {
    throw new DomainError('invalid_state', 'Only payments created with captureMethod manual can be captured; this one was captured automatically.', {
      state: payment.state.status,
      trigger: 'capture',
    });
  }
  if (payment.state.authorizationExpiresAt && now.getTime() > Date.parse(payment.state.authorizationExpiresAt)) {
    throw new DomainError('payment_not_capturable', `The authorization expired at ${payment.state.authorizationExpiresAt}; it can no longer be captured.`);
  }
  const toCapture = amount ?? payment.state.amount;
  if (!isAmount(toCapture)) throw new DomainError('validation_failed', 'amount must be a positive integer.', { param: 'body.amount' });
  if (toCapture > payment.state.amount) {
    throw new DomainError('amount_exceeds_available', `Cannot capture ${toCapture}; only ${payment.state.amount} is authorized.`, {
      param: 'body.amount',
      available: payment.state.amount,
    });
  }
  return toCapture;
}

/**
 * Full or partial capture; a partial capture releases the rest of the authorization. The deadline is judged at
 * `requestedAt` (default `now`): a capture requested in time and confirmed by the acquirer after is recorded.
 */
export function capture(payment: PaymentInternals, input: CaptureInput): PaymentOperation {
  const amount = assertCapturable(payment, input.amount, input.requestedAt ?? input.now);
  const resolvesReview = payment.state.fraudReview?.status === 'pending';
  const operation: PaymentOperation = {
    id: input.operationId,
    type: 'capture',
    amount,
    releasedAmount: payment.state.amount - amount,
    status: 'succeeded',
    reason: null,
    connectorAccountId: payment.state.connectorAccountId,
    acquirerReference: input.acquirerReference ?? null,
    metadata: {},
    createdAt: input.now.toISOString(),
    ...(input.idempotencyKeys?.length ? { idempotencyKeys: [...input.idempotencyKeys] } : {}),
  };
  const before = payment.change('capture', input.now, (s) => {
    s.capturedAmount = amount;
    s.operations.push(operation);
    if (resolvesReview) s.fraudReview = { ...s.fraudReview!, status: 'merchant_decided', resolvedAt: input.now.toISOString() };
  });
  payment.record('payment.captured');
  if (resolvesReview) payment.recordFraudReviewResolved(before);
  return clone(operation);
}

/** Validates a void; returns what it would do: cancel (nothing at the acquirer) or void (same connector). */
export function assertVoidable(payment: PaymentInternals): 'cancel' | 'void' {
  payment.requireTrigger('void');
  if (payment.state.status === 'authorized') {
    const isCard = payment.state.methodType === 'card' || payment.state.methodType === 'debit_card';
    if (!isCard || payment.state.capturedAmount > 0) {
      throw new InvalidStateError('payment', payment.state.status, 'void');
    }
    return 'void';
  }
  return 'cancel';
}

export function voidPayment(payment: PaymentInternals, input: VoidInput): PaymentOperation {
  const kind = assertVoidable(payment);
  const resolvesReview = payment.state.fraudReview?.status === 'pending';
  const operation: PaymentOperation = {
    id: input.operationId,
    type: 'void',
    amount: kind === 'void' ? payment.state.amount : 0,
    releasedAmount: kind === 'void' ? payment.state.amount : 0,
    status: 'succeeded',
    reason: input.reason ?? null,
    connectorAccountId: kind === 'void' ? payment.state.connectorAccountId : null,
    acquirerReference: input.acquirerReference ?? null,
    metadata: {},
    createdAt: input.now.toISOString(),
    ...(input.idempotencyKeys?.length ? { idempotencyKeys: [...input.idempotencyKeys] } : {}),
  };
  const before = payment.change('void', input.now, (s) => {
    s.operations.push(operation);
    if (resolvesReview) s.fraudReview = { ...s.fraudReview!, status: 'merchant_decided', resolvedAt: input.now.toISOString() };
    // A run still waiting (a Pix or boleto for its bank notice) ends with the payment: nothing will resume it.
    if (s.flowRun) s.flowRun = endWaitingRun(s.flowRun, { reason: 'voided', message: 'The merchant voided the payment while its flow run waited.' });
  });
  payment.record(kind === 'void' ? 'payment.voided' : 'payment.canceled');
  if (resolvesReview) payment.recordFraudReviewResolved(before);
  return clone(operation);
}

/** Validates a refund and returns the amount; boleto money cannot go back through the service. */
export function assertRefundable(payment: PaymentInternals, amount: number | undefined): number {
  if (payment.state.methodType === 'boleto') {
    throw new DomainError(
      'boleto_refund_not_supported',
      'A boleto cannot be refunded automatically: return the money by Pix or bank transfer and register the refund with the customer.',
      { guidance: 'return_by_pix_or_bank_transfer' },
    );
  }
  payment.requireTrigger('refund');
  const available = payment.state.capturedAmount - payment.state.refundedAmount;
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
export function refund(payment: PaymentInternals, input: RefundInput): PaymentOperation {
  const amount = assertRefundable(payment, input.amount);
  const operation: PaymentOperation = {
    id: input.operationId,
    type: 'refund',
    amount,
    releasedAmount: 0,
    status: 'succeeded',
    reason: input.reason ?? null,
    connectorAccountId: payment.state.connectorAccountId,
    acquirerReference: input.acquirerReference ?? null,
    metadata: clone(input.metadata ?? {}),
    createdAt: input.now.toISOString(),
    ...(input.idempotencyKeys?.length ? { idempotencyKeys: [...input.idempotencyKeys] } : {}),
  };
  payment.change('refund', input.now, (s) => {
    s.refundedAmount += amount;
    s.refundStatus = s.refundedAmount >= s.capturedAmount ? 'full' : 'partial';
    s.operations.push(operation);
  });
  payment.record(payment.state.refundStatus === 'full' ? 'payment.refunded' : 'payment.partially_refunded');
  return clone(operation);
}
