/**
 * The capture deadline of a pre-authorization and what happens as it nears: one notice, then the action the
 * merchant chose (notify, capture or void), which the caller carries out through the normal operations.
 */
import { InvalidStateError } from '../shared/domain-error';
import { cardNetwork, type CardIdentity } from './decline/classify-decline';
import type { PaymentInternals } from './payment-internals';
import type { ExpiryAction } from './payment.primitives';

/** payment.authorization_expiring goes out this long before the capture deadline (spec, payload rule 5). */
export const EXPIRY_NOTICE_MS = 24 * 60 * 60 * 1000;

/** Pre-authorization capture deadline: 7 days for Mastercard, 15 days for the other networks (spec, payload rule 5). */
export function authorizationCaptureDeadline(card: CardIdentity | null | undefined, authorizedAt: Date): Date {
  // The network by the brand sent, else by the BIN (cardNetwork); a card of unknown network gets the 15 days.
  const days = cardNetwork(card) === 'mastercard' ? 7 : 15;
  return new Date(authorizedAt.getTime() + days * 24 * 60 * 60 * 1000);
}

export interface ExpiryNoticeInput {
  now: Date;
  expiryAction: ExpiryAction;
}

export interface ExpiryActionRefusedInput {
  now: Date;
  message: string;
}

/** The notice is due 24 hours before the capture deadline of an authorized, uncaptured pre-authorization. */
export function isExpiryNoticeDue(payment: PaymentInternals, now: Date): boolean {
  const s = payment.state;
  if (s.status !== 'authorized' || !s.authorizationExpiresAt || s.expiryNoticeAt || s.capturedAmount > 0) return false;
  const deadline = Date.parse(s.authorizationExpiresAt);
  return now.getTime() >= deadline - EXPIRY_NOTICE_MS && now.getTime() <= deadline;
}

/**
 * Emits payment.authorization_expiring once, with the action that will follow (notify only warns; capture and
 * void are then carried out by the caller through the normal capture/void operations).
 */
export function noticeAuthorizationExpiring(payment: PaymentInternals, input: ExpiryNoticeInput): void {
  if (!isExpiryNoticeDue(payment, input.now)) {
    throw new InvalidStateError('payment', payment.state.status, 'authorization_expiring_notify');
  }
  payment.change('authorization_expiring_notify', input.now, (s) => {
    s.expiryNoticeAt = input.now.toISOString();
    s.expiryAction = input.expiryAction;
  });
  payment.record('payment.authorization_expiring');
}

/**
 * The acquirer refused the near-expiry capture or void (an answer, not a failure): the worker stops asking, the
 * authorization stays as it is and the merchant may still capture or void it before the deadline.
 */
export function recordExpiryActionRefused(payment: PaymentInternals, input: ExpiryActionRefusedInput): void {
  const s = payment.state;
  if (!s.expiryNoticeAt || (s.expiryAction !== 'capture' && s.expiryAction !== 'void')) {
    throw new InvalidStateError('payment', s.status, 'expiry_action_refused');
  }
  s.expiryActionRefusal = { at: input.now.toISOString(), message: input.message };
  s.updatedAt = input.now.toISOString();
}
