import { TransitionTable, allowedTriggers, transition } from '../shared/state-machine';

export const PAYMENT_STATUSES = [
  'requires_payment_method',
  'requires_action',
  'processing',
  'authorized',
  'captured',
  'failed',
  'canceled',
  'voided',
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * `new` is the state before the first save: the spec's "(new)" rows. It is never stored, but keeping it in the
 * table lets creation be asked the same "may this happen now?" question as every other move.
 */
export type PaymentLifecycleState = 'new' | PaymentStatus;
export const PAYMENT_LIFECYCLE_STATES: readonly PaymentLifecycleState[] = ['new', ...PAYMENT_STATUSES];

export const PAYMENT_TRIGGERS = [
  // creation
  'open_checkout', // card without card data / paymentMethodId: transparent checkout
  'issue_bank_charge', // pix or boleto: QR code or digitable line issued
  'submit', // card (or saved card) sent for authorization; persisted as processing before the connector call
  // outcomes of an authorization attempt (processing)
  'approve_with_capture',
  'approve_authorization',
  'hold_for_fraud_review', // acquirer holds the sale in review: authorized even with automatic capture
  'decline', // issuer decline that ends the payment
  'decline_retryable', // transparent checkout: reversible decline with attempts left
  'fail', // no account could process (technical failures exhausted, split_not_supported ...)
  'require_three_ds',
  'review_approve', // manual review step: flow continues (approved exit)
  'review_decline', // manual review step: flow continues (declined exit)
  // transparent checkout
  'confirm',
  'checkout_not_configured',
  // asynchronous and deadlines
  'three_ds_result',
  'bank_confirm_paid',
  'expire',
  // merchant operations
  'capture',
  'void',
  'refund',
  // pre-authorization expiry
  'authorization_expiring_notify',
  'authorization_expired_capture',
  'authorization_expired_void',
  // acquirer fraud review decisions
  'fraud_review_accept_capture',
  'fraud_review_accept_keep',
  'fraud_review_reject',
] as const;
export type PaymentTrigger = (typeof PAYMENT_TRIGGERS)[number];

/** The spec's "Payment transitions" table; conditions that are not about the state live in the aggregate. */
export const PAYMENT_TRANSITIONS = {
  new: {
    open_checkout: 'requires_payment_method',
    issue_bank_charge: 'requires_action',
    submit: 'processing',
  },
  requires_payment_method: {
    confirm: 'processing',
    checkout_not_configured: 'requires_payment_method',
    void: 'canceled',
    expire: 'canceled',
  },
  requires_action: {
    three_ds_result: 'processing',
    bank_confirm_paid: 'captured',
    void: 'canceled',
    expire: 'canceled',
  },
  processing: {
    approve_with_capture: 'captured',
    approve_authorization: 'authorized',
    hold_for_fraud_review: 'authorized',
    decline: 'failed',
    decline_retryable: 'requires_payment_method',
    fail: 'failed',
    require_three_ds: 'requires_action',
    // pix or boleto: the charge was issued at the bank (the payment is saved processing before the call)
    issue_bank_charge: 'requires_action',
    review_approve: 'processing',
    review_decline: 'processing',
  },
  authorized: {
    capture: 'captured',
    void: 'voided',
    authorization_expiring_notify: 'authorized',
    authorization_expired_capture: 'captured',
    authorization_expired_void: 'voided',
    fraud_review_accept_capture: 'captured',
    fraud_review_accept_keep: 'authorized',
    fraud_review_reject: 'voided',
  },
  // contract.md 7: the status stays captured after refunds; refundStatus says how much went back.
  captured: {
    refund: 'captured',
  },
  failed: {},
  canceled: {},
  voided: {},
} as const satisfies TransitionTable<PaymentLifecycleState, PaymentTrigger>;

export function nextPaymentState(state: PaymentLifecycleState, trigger: PaymentTrigger): PaymentLifecycleState {
  return transition<PaymentLifecycleState, PaymentTrigger>('payment', PAYMENT_TRANSITIONS, state, trigger);
}

export function paymentTriggersAllowedIn(state: PaymentLifecycleState): PaymentTrigger[] {
  return allowedTriggers<PaymentLifecycleState, PaymentTrigger>(PAYMENT_TRANSITIONS, state);
}
