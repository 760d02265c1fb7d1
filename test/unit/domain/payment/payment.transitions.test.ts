import { expect } from 'chai';
import { InvalidStateError } from '../../../../domain/shared/domain-error';
import {
  PAYMENT_LIFECYCLE_STATES,
  PAYMENT_TRIGGERS,
  PaymentLifecycleState,
  PaymentTrigger,
  nextPaymentState,
  paymentTriggersAllowedIn,
} from '../../../../domain/payment/payment.transitions';

/**
 * Written out by hand from the spec's "Payment transitions" table (not derived from the code under test):
 * every pair not listed here must be refused with invalid_state.
 */
const EXPECTED: Record<PaymentLifecycleState, Partial<Record<PaymentTrigger, PaymentLifecycleState>>> = {
  new: { open_checkout: 'requires_payment_method', issue_bank_charge: 'requires_action', submit: 'processing' },
  requires_payment_method: {
    confirm: 'processing',
    checkout_not_configured: 'requires_payment_method',
    void: 'canceled',
    expire: 'canceled',
  },
  requires_action: { three_ds_result: 'processing', bank_confirm_paid: 'captured', void: 'canceled', expire: 'canceled' },
  processing: {
    approve_with_capture: 'captured',
    approve_authorization: 'authorized',
    hold_for_fraud_review: 'authorized',
    decline: 'failed',
    decline_retryable: 'requires_payment_method',
    fail: 'failed',
    require_three_ds: 'requires_action',
    // Pix / boleto saved processing before the charge is issued (not a spec row: the API never shows it processing).
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
  captured: { refund: 'captured' },
  failed: {},
  canceled: {},
  voided: {},
};

describe('payment transitions', () => {
  for (const state of PAYMENT_LIFECYCLE_STATES) {
    for (const trigger of PAYMENT_TRIGGERS) {
      const expected = EXPECTED[state][trigger];
      if (expected) {
        it(`${state} --${trigger}--> ${expected}`, () => {
          expect(nextPaymentState(state, trigger)).to.equal(expected);
        });
      } else {
        it(`${state} refuses ${trigger}`, () => {
          let thrown: unknown;
          try {
            nextPaymentState(state, trigger);
          } catch (error) {
            thrown = error;
          }
          expect(thrown).to.be.instanceOf(InvalidStateError);
          expect((thrown as InvalidStateError).code).to.equal('invalid_state');
          expect((thrown as InvalidStateError).meta).to.include({ state, trigger });
        });
      }
    }
  }

  it('lists the allowed triggers of a state', () => {
    expect(paymentTriggersAllowedIn('captured')).to.deep.equal(['refund']);
    expect(paymentTriggersAllowedIn('failed')).to.deep.equal([]);
  });

  it('terminal states allow nothing', () => {
    for (const s of ['failed', 'canceled', 'voided'] as const) expect(paymentTriggersAllowedIn(s)).to.have.length(0);
  });
});
