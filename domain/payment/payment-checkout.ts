/**
 * The transparent checkout (spec, creation rules 3-5; Payment transitions, requires_payment_method rows): a card
 * payment created without a card waits for the buyer's browser to bring one. Each card tried is one attempt that
 * runs the flow again; a reversible decline with attempts and time left returns the payment to
 * requires_payment_method (payment.attempt_declined), anything else ends it (failed with checkout.endedBy, or
 * canceled when the deadline passes first).
 */
import { DomainError } from '../shared/domain-error';
import { cloneJson as clone } from '../shared/clone-json';
import { classifiedDecline, type DeclineInput, type FailInput } from './payment-authorization';
import { newCardPaymentState, type CreateCardPaymentInput } from './payment-creation';
import type { FingerprintSession } from './fingerprint-session';
import type { PaymentInternals } from './payment-internals';
import { emptyReferences, type CardSummary, type CheckoutEndedBy, type CheckoutState, type PaymentPrimitives } from './payment.primitives';

export type { CheckoutEndedBy, CheckoutState } from './payment.primitives';
import { nextPaymentState, type PaymentStatus } from './payment.transitions';

/** Spec, Limits: a checkout payment expires 24 hours after creation. */
export const CHECKOUT_TTL_MS = 24 * 60 * 60 * 1000;
/** Spec, Limits: card attempts in the transparent checkout (default 3). */
export const CHECKOUT_ATTEMPTS_MAX = 3;

/** The checkout as the API and events show it. */
export interface PublicCheckout {
  attemptsUsed: number;
  attemptsMax: number;
  attemptsRemaining: number;
  endedBy: CheckoutEndedBy | null;
}

export function publicCheckout(checkout: Pick<CheckoutState, 'attemptsUsed' | 'attemptsMax' | 'endedBy'>): PublicCheckout {
  return {
    attemptsUsed: checkout.attemptsUsed,
    attemptsMax: checkout.attemptsMax,
    attemptsRemaining: Math.max(0, checkout.attemptsMax - checkout.attemptsUsed),
    endedBy: checkout.endedBy,
  };
}

export interface OpenCheckoutInput extends Omit<CreateCardPaymentInput, 'card' | 'methodType' | 'flowRun'> {
  methodType: 'card' | 'debit_card';
  clientSecret: { sealed: string; sha256: string };
  tokenizationAccountId: string;
  /** Opened when the charging account runs the acquirer's antifraud analysis (fingerprint-session.ts). */
  fingerprintSession?: FingerprintSession | null;
}

const NO_CARD: CardSummary = { brand: null, bin: null, last4: null, expMonth: null, expYear: null, holderName: null };

/** A checkout payment as created: requires_payment_method, nothing sent to an acquirer, the deadline 24 hours away. */
export function newCheckoutPaymentState(input: OpenCheckoutInput): PaymentPrimitives {
  const base = newCardPaymentState({ ...input, methodType: 'card', card: NO_CARD, flowRun: null });
  return {
    ...base,
    status: nextPaymentState('new', 'open_checkout') as PaymentStatus,
    methodType: input.methodType,
    card: null,
    // The buyer's card is tokenized by this account's vault: only this account can charge its token.
    pinnedConnectorAccountId: input.tokenizationAccountId,
    checkout: {
      secret: clone(input.clientSecret),
      tokenizationAccountId: input.tokenizationAccountId,
      expiresAt: new Date(input.now.getTime() + CHECKOUT_TTL_MS).toISOString(),
      attemptsUsed: 0,
      attemptsMax: CHECKOUT_ATTEMPTS_MAX,
      endedBy: null,
      notConfiguredReasons: [],
      fingerprintSession: input.fingerprintSession ? clone(input.fingerprintSession) : null,
    },
  };
}

function checkoutOf(payment: PaymentInternals): CheckoutState {
  const checkout = payment.state.checkout;
  if (!checkout) throw new DomainError('invalid_state', `Payment ${payment.state.id} is not a transparent checkout payment.`);
  return checkout;
}

/** Whether the checkout's deadline has passed at `now`. */
export function isCheckoutExpired(checkout: { readonly expiresAt: string } | null | undefined, now: Date): boolean {
  return !!checkout && now.getTime() >= Date.parse(checkout.expiresAt);
}

export interface ConfirmAttemptInput {
  card: CardSummary;
  /** The run as its first step left it (a new run per attempt: each card runs the flow again). */
  flowRun: PaymentPrimitives['flowRun'];
  now: Date;
}

/**
 * A card arrives: the attempt is counted and the payment goes to processing, saved before the acquirer is called.
 * The previous attempt's decline and references are cleared: they were about another card.
 */
export function confirmAttempt(payment: PaymentInternals, input: ConfirmAttemptInput): void {
  const checkout = checkoutOf(payment);
  payment.requireStatus('requires_payment_method', 'confirm');
  if (isCheckoutExpired(payment.state.checkout, input.now)) throw new DomainError('payment_expired', 'The checkout deadline has passed.');
  payment.change('confirm', input.now, (s) => {
    s.card = clone(input.card);
    s.flowRun = input.flowRun ? clone(input.flowRun) : null;
    s.decline = null;
    s.error = null;
    s.acquirer = emptyReferences();
    s.connectorAccountId = null;
    s.connectorSlug = null;
    s.routingStopReason = null;
    s.checkout = { ...checkout, attemptsUsed: checkout.attemptsUsed + 1 };
  });
}

/**
 * The issuer declined the attempt. Reversible, with attempts and time left: back to requires_payment_method with
 * payment.attempt_declined (the buyer may try another card). Otherwise the payment ends failed with endedBy; an
 * irreversible decline ends it even with attempts left (spec, payload rule 2: not configurable).
 */
export function declineAttempt(payment: PaymentInternals, input: DeclineInput): void {
  const checkout = checkoutOf(payment);
  const decline = classifiedDecline(input.rawCode, payment.state.card);
  if (!decline) throw new DomainError('invalid_decline', `Return code ${input.rawCode} is an approval, not a decline.`);
  const reversible = decline.reversibility === 'REVERSIBLE';
  const attemptsLeft = checkout.attemptsMax - checkout.attemptsUsed > 0;
  const expired = isCheckoutExpired(payment.state.checkout, input.now);
  const endedBy: CheckoutEndedBy | null = !reversible ? 'irreversible' : expired ? 'expired' : !attemptsLeft ? 'attempt_limit' : null;
  payment.change(endedBy ? 'decline' : 'decline_retryable', input.now, (s) => {
    s.decline = decline;
    s.connectorAccountId = input.connectorAccountId;
    s.connectorSlug = input.connectorSlug;
    s.acquirer = { ...emptyReferences(), ...Object.fromEntries(Object.entries(input.references ?? {}).filter(([, v]) => v !== undefined)) };
    s.routingStopReason = 'issuer_declined';
    s.checkout = { ...checkout, endedBy };
  });
  payment.record(endedBy ? 'payment.failed' : 'payment.attempt_declined');
}

/** No issuer answered the attempt (every account failed, the flow declined it...): the checkout ends. */
export function failAttempt(payment: PaymentInternals, input: FailInput): void {
  const checkout = checkoutOf(payment);
  payment.change('fail', input.now, (s) => {
    s.error = clone(input.error);
    s.routingStopReason = input.routingStopReason;
    s.checkout = { ...checkout, endedBy: 'not_issuer_decline' };
  });
  payment.record('payment.failed');
}

/** The deadline passed with no card approved: canceled (payment.canceled), by the expiry job or a late confirm. */
export function expireCheckout(payment: PaymentInternals, now: Date): void {
  const checkout = checkoutOf(payment);
  if (!isCheckoutExpired(payment.state.checkout, now)) throw new DomainError('invalid_state', `The checkout of payment ${payment.state.id} has not expired yet.`);
  payment.change('expire', now, (s) => {
    s.checkout = { ...checkout, endedBy: 'expired' };
  });
  payment.record('payment.canceled');
}

export interface CheckoutNotConfiguredInput {
  /** A stable name of the reason (one event per reason per payment), e.g. the error code. */
  reason: string;
  error: { code: string; message: string; stage: string; connectorAccount: { id: string; name: string } | null };
  now: Date;
}

/**
 * The tokenization session could not open because the merchant's account is misconfigured: the buyer is told
 * checkout_not_configured, the merchant gets payment.checkout_not_configured with the reason, once per reason.
 * Returns whether the event was recorded (false: already reported for this reason).
 */
export function recordCheckoutNotConfigured(payment: PaymentInternals, input: CheckoutNotConfiguredInput): boolean {
  const checkout = checkoutOf(payment);
  if (checkout.notConfiguredReasons.includes(input.reason)) return false;
  payment.change('checkout_not_configured', input.now, (s) => {
    s.error = clone(input.error);
    s.checkout = { ...checkout, notConfiguredReasons: [...checkout.notConfiguredReasons, input.reason] };
  });
  payment.record('payment.checkout_not_configured');
  return true;
}
