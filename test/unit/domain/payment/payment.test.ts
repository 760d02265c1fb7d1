import { expect } from 'chai';
import { DomainError } from '../../../../domain/shared/domain-error';
import { Payment } from '../../../../domain/payment/payment';
import {
  APPROVAL,
  T0,
  authorizedPayment,
  capturedPayment,
  processingPayment,
  withPrimitives,
} from '../../../support/builders/payment.builder';

const DAY = 24 * 60 * 60 * 1000;
const later = (ms: number) => new Date(T0.getTime() + ms);

function errorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe('Payment aggregate', () => {
  describe('creation', () => {
    it('starts a card payment in processing, recording no event', () => {
      const p = processingPayment();
      expect(p.status).to.equal('processing');
      expect(p.pullEvents()).to.deep.equal([]);
      const s = p.toPrimitives();
      expect(s).to.include({ capturedAmount: 0, refundedAmount: 0, refundStatus: null, decline: null, installments: 1, initiator: 'customer' });
    });

    it('keeps only the card summary, never a number or CVV', () => {
      const s = processingPayment().toPrimitives();
      expect(Object.keys(s.card!)).to.have.members(['brand', 'bin', 'last4', 'expMonth', 'expYear', 'holderName']);
      expect(JSON.stringify(s)).to.not.match(/"(number|cvv|cvc)"/i);
    });

    it('refuses amounts and installments outside the spec bounds', () => {
      expect(errorOf(() => processingPayment({ amount: 0 })).code).to.equal('validation_failed');
      expect(errorOf(() => processingPayment({ amount: 10_000_000_000 })).code).to.equal('validation_failed');
      expect(errorOf(() => processingPayment({ amount: 10.5 })).code).to.equal('validation_failed');
      expect(errorOf(() => processingPayment({ installments: 25 })).meta.param).to.equal('body.installments');
    });
  });

  describe('authorization outcome', () => {
    it('automatic capture: approved -> captured with payment.captured and previousAttributes', () => {
      const p = processingPayment();
      p.approve({ ...APPROVAL, now: later(1000) });
      expect(p.status).to.equal('captured');
      expect(p.capturedAmount).to.equal(10_000);
      const [event, ...rest] = p.pullEvents();
      expect(rest).to.have.length(0);
      expect(event!.type).to.equal('payment.captured');
      expect(event!.previousAttributes).to.include({ status: 'processing', capturedAmount: 0, connectorAccountId: null });
      expect(event!.previousAttributes).to.not.have.property('updatedAt');
      expect(event!.payment.acquirer).to.deep.equal({ nsu: '123456', tid: 'TID1', authorizationCode: 'A1B2C3', acquirerPaymentId: null });
      expect(p.pullEvents()).to.deep.equal([]);
    });

    it('manual capture: approved -> authorized with the pre-authorization deadline (15 days, 7 for Mastercard)', () => {
      const visa = processingPayment({ captureMethod: 'manual' });
      visa.approve({ ...APPROVAL, now: T0 });
      expect(visa.status).to.equal('authorized');
      expect(visa.toPrimitives().authorizationExpiresAt).to.equal(later(15 * DAY).toISOString());
      expect(visa.pullEvents().map((e) => e.type)).to.deep.equal(['payment.authorized']);

      const master = processingPayment({ captureMethod: 'manual', card: { brand: 'mastercard', bin: '555555', last4: '4444', expMonth: 1, expYear: 2030, holderName: null } });
      master.approve({ ...APPROVAL, now: T0 });
      expect(master.toPrimitives().authorizationExpiresAt).to.equal(later(7 * DAY).toISOString());

      // No brand sent: the BIN tells Mastercard (51-55, 2221-2720) from the other networks.
      for (const [bin, days] of [['555555', 7], ['222100', 7], ['272099', 7], ['411111', 15], ['272100', 15], ['', 15]] as const) {
        const unbranded = processingPayment({ captureMethod: 'manual', card: { brand: null, bin: bin || null, last4: '4444', expMonth: 1, expYear: 2030, holderName: null } });
        unbranded.approve({ ...APPROVAL, now: T0 });
        expect(unbranded.toPrimitives().authorizationExpiresAt, `bin ${bin}`).to.equal(later(days * DAY).toISOString());
      }
    });

    it('a sale held in fraud review is authorized with fraudReview pending even with automatic capture', () => {
      const p = processingPayment({ captureMethod: 'automatic' });
      p.approve({ ...APPROVAL, fraudReview: true, now: T0 });
      expect(p.status).to.equal('authorized');
      expect(p.capturedAmount).to.equal(0);
      expect(p.toPrimitives().fraudReview).to.include({ status: 'pending' });
      expect(p.pullEvents().map((e) => e.type)).to.deep.equal(['payment.authorized']);
    });

    it('issuer decline -> failed with the classified decline and payment.failed', () => {
      const p = processingPayment();
      p.recordAttempt({ id: 'att_1', connectorAccountId: 'ca_1', connectorSlug: 'sandbox', rawCode: '51', classification: 'INSUFFICIENT_FUNDS', latencyMs: 12, outcome: 'declined', message: null, startedAt: T0.toISOString() });
      p.decline({ rawCode: '51', connectorAccountId: 'ca_1', connectorSlug: 'sandbox', now: T0 });
      expect(p.status).to.equal('failed');
      const s = p.toPrimitives();
      expect(s.decline).to.include({ reason: 'INSUFFICIENT_FUNDS', reversibility: 'REVERSIBLE', retryAction: 'RETRY_LATER', rawCode: '51' });
      expect(s.decline!.consumerMessages.en).to.be.a('string');
      expect(s.routingStopReason).to.equal('issuer_declined');
      expect(s.attempts).to.have.length(1);
      const [event] = p.pullEvents();
      expect(event!.type).to.equal('payment.failed');
      expect(event!.previousAttributes).to.deep.include({ status: 'processing', decline: null });
    });

    it('refuses an approval code as a decline', () => {
      expect(errorOf(() => processingPayment().decline({ rawCode: '00', connectorAccountId: 'ca_1', connectorSlug: 'sandbox', now: T0 })).code).to.equal('invalid_decline');
    });

    it('routing failure (e.g. split_not_supported) -> failed with error and payment.failed', () => {
      const p = processingPayment();
      p.fail({ error: { code: 'split_not_supported', message: 'No account can split.', stage: 'routing', connectorAccount: null }, routingStopReason: 'split_not_supported', now: T0 });
      expect(p.status).to.equal('failed');
      const [event] = p.pullEvents();
      expect(event!.type).to.equal('payment.failed');
      expect(event!.payment.error!.code).to.equal('split_not_supported');
    });

    it('records attempts only while processing', () => {
      const p = capturedPayment();
      expect(errorOf(() => p.recordAttempt({ id: 'att', connectorAccountId: 'ca', connectorSlug: 's', rawCode: null, classification: null, latencyMs: 1, outcome: 'timeout', message: null, startedAt: T0.toISOString() })).code).to.equal('invalid_state');
    });

    it('a timed-out attempt is marked for reconciliation; its result is recorded later without an event', () => {
      const p = processingPayment();
      const base = { connectorSlug: 'sandbox', rawCode: null, latencyMs: 1, message: null, startedAt: T0.toISOString() };
      p.recordAttempt({ ...base, id: 'att_t', connectorAccountId: 'ca_1', classification: 'TIMEOUT', outcome: 'timeout' });
      p.recordAttempt({ ...base, id: 'att_f', connectorAccountId: 'ca_2', classification: 'TECHNICAL_FAILURE', outcome: 'technical_failure' });
      p.approve({ ...APPROVAL, now: T0 });
      p.pullEvents();
      const [timedOut, failed] = p.toPrimitives().attempts;
      expect(timedOut!.reconciliation).to.include({ status: 'pending', tries: 0 });
      expect(failed!.reconciliation).to.equal(undefined);
      const result = { status: 'voided' as const, tries: 1, checkedAt: later(1000).toISOString(), acquirerPaymentId: 'acq_1', operationId: 'op_1', amount: 100, rawCode: '00', message: null };
      p.recordAttemptReconciliation('att_t', result, later(1000));
      expect(p.toPrimitives().attempts[0]!.reconciliation).to.deep.equal(result);
      expect(p.status).to.equal('captured');
      expect(p.pullEvents()).to.deep.equal([]);
      expect(errorOf(() => p.recordAttemptReconciliation('att_unknown', result, later(1000))).code).to.equal('resource_missing');
    });

    it('a decided payment cannot be decided again', () => {
      expect(errorOf(() => capturedPayment().approve({ ...APPROVAL, now: T0 })).code).to.equal('invalid_state');
    });
  });

  describe('capture', () => {
    it('captures the full authorized amount of a manual payment', () => {
      const p = authorizedPayment();
      const op = p.capture({ operationId: 'op_1', now: later(DAY) });
      expect(p.status).to.equal('captured');
      expect(op).to.include({ type: 'capture', amount: 10_000, releasedAmount: 0 });
      const [event] = p.pullEvents();
      expect(event!.type).to.equal('payment.captured');
      expect(event!.previousAttributes).to.deep.equal({ status: 'authorized', capturedAmount: 0 });
    });

    it('a partial capture releases the rest', () => {
      const p = authorizedPayment();
      const op = p.capture({ operationId: 'op_1', amount: 6_000, now: later(DAY) });
      expect(op).to.include({ amount: 6_000, releasedAmount: 4_000 });
      expect(p.capturedAmount).to.equal(6_000);
      expect(errorOf(() => p.capture({ operationId: 'op_2', amount: 1_000, now: later(DAY) })).code).to.equal('invalid_state');
    });

    it('more than available -> amount_exceeds_available', () => {
      const e = errorOf(() => authorizedPayment().capture({ operationId: 'op', amount: 10_001, now: T0 }));
      expect(e.code).to.equal('amount_exceeds_available');
      expect(e.meta.param).to.equal('body.amount');
    });

    it('after the authorization expired -> payment_not_capturable', () => {
      const p = authorizedPayment();
      expect(p.assertCapturable(undefined, later(15 * DAY))).to.equal(10_000);
      expect(errorOf(() => p.capture({ operationId: 'op', now: later(15 * DAY + 1) })).code).to.equal('payment_not_capturable');
    });

    it('a capture requested before the deadline is recorded after it (judged at requestedAt, dated now)', () => {
      const p = authorizedPayment();
      const op = p.capture({ operationId: 'op', now: later(15 * DAY + 60_000), requestedAt: later(15 * DAY - 60_000) });
      expect(op.createdAt).to.equal(later(15 * DAY + 60_000).toISOString());
      expect(p.toPrimitives()).to.include({ status: 'captured', capturedAmount: 10_000 });
    });

    it('automatic-capture payments cannot be captured again (invalid_state)', () => {
      expect(errorOf(() => capturedPayment().capture({ operationId: 'op', now: T0 })).code).to.equal('invalid_state');
    });

    it('a failed payment cannot be captured', () => {
      const p = processingPayment({ captureMethod: 'manual' });
      p.decline({ rawCode: '05', connectorAccountId: 'ca_1', connectorSlug: 'sandbox', now: T0 });
      expect(errorOf(() => p.capture({ operationId: 'op', now: T0 })).code).to.equal('invalid_state');
    });

    it('under fraud review: capture closes the review as merchant_decided; captured first, then fraud_review_resolved', () => {
      const p = authorizedPayment({ captureMethod: 'automatic' }, true);
      p.capture({ operationId: 'op', now: later(60_000) });
      const events = p.pullEvents();
      expect(events.map((e) => e.type)).to.deep.equal(['payment.captured', 'payment.fraud_review_resolved']);
      expect(events[0]!.payment.fraudReview!.status).to.equal('merchant_decided');
      expect((events[0]!.previousAttributes.fraudReview as { status: string }).status).to.equal('pending');
      expect((events[1]!.previousAttributes.fraudReview as { status: string }).status).to.equal('pending');
      expect(events[1]!.payment.fraudReview!.status).to.equal('merchant_decided');
    });
  });

  describe('void', () => {
    it('voids an authorized, uncaptured card payment', () => {
      const p = authorizedPayment();
      const op = p.void({ operationId: 'op', reason: 'customer gave up', now: later(1000) });
      expect(p.status).to.equal('voided');
      expect(op).to.include({ type: 'void', amount: 10_000, reason: 'customer gave up', connectorAccountId: 'ca_1' });
      const [event] = p.pullEvents();
      expect(event!.type).to.equal('payment.voided');
      expect(event!.previousAttributes).to.deep.equal({ status: 'authorized' });
    });

    for (const [name, build] of [
      ['captured', () => capturedPayment()],
      ['failed', () => {
        const p = processingPayment();
        p.decline({ rawCode: '05', connectorAccountId: 'ca', connectorSlug: 'sandbox', now: T0 });
        return p;
      }],
      ['voided', () => {
        const p = authorizedPayment();
        p.void({ operationId: 'op', now: T0 });
        return p;
      }],
      ['processing', () => processingPayment()],
    ] as Array<[string, () => Payment]>) {
      it(`refuses void on a ${name} payment with invalid_state`, () => {
        expect(errorOf(() => build().void({ operationId: 'op2', now: T0 })).code).to.equal('invalid_state');
      });
    }

    it('under fraud review: void closes the review as merchant_decided; voided first', () => {
      const p = authorizedPayment({}, true);
      p.void({ operationId: 'op', now: T0 });
      expect(p.pullEvents().map((e) => e.type)).to.deep.equal(['payment.voided', 'payment.fraud_review_resolved']);
      expect(p.toPrimitives().fraudReview!.status).to.equal('merchant_decided');
    });
  });

  describe('refund', () => {
    it('several partial refunds up to the captured amount, then full; status stays captured', () => {
      const p = capturedPayment();
      p.refund({ operationId: 'r1', amount: 3_000, now: later(1) });
      expect(p.status).to.equal('captured');
      expect(p.toPrimitives()).to.include({ refundedAmount: 3_000, refundStatus: 'partial' });
      const [e1] = p.pullEvents();
      expect(e1!.type).to.equal('payment.partially_refunded');
      expect(e1!.previousAttributes).to.deep.equal({ refundedAmount: 0, refundStatus: null });

      p.refund({ operationId: 'r2', amount: 2_000, now: later(2) });
      expect(p.pullEvents()[0]!.type).to.equal('payment.partially_refunded');

      const last = p.refund({ operationId: 'r3', now: later(3) });
      expect(last.amount).to.equal(5_000);
      expect(p.toPrimitives()).to.include({ refundedAmount: 10_000, refundStatus: 'full', status: 'captured' });
      const [e3] = p.pullEvents();
      expect(e3!.type).to.equal('payment.refunded');
      expect(e3!.previousAttributes).to.deep.equal({ refundedAmount: 5_000, refundStatus: 'partial' });
      expect(p.toPrimitives().operations.filter((o) => o.type === 'refund')).to.have.length(3);
    });

    it('view() is the state itself (what the repository writes), equal to a copy and following later changes', () => {
      const p = capturedPayment();
      const view = p.view();
      expect(view).to.deep.equal(p.toPrimitives());
      p.refund({ operationId: 'r1', amount: 3_000, now: later(1) });
      expect(view.refundedAmount).to.equal(3_000);
      expect(p.toPrimitives()).to.not.equal(p.toPrimitives());
    });

    it('an operation keeps the Idempotency-Keys that asked for it: found by type and key, and by id', () => {
      const p = capturedPayment();
      p.refund({ operationId: 'r1', amount: 3_000, now: later(1), idempotencyKeys: ['k-first', 'k-again'] });
      p.refund({ operationId: 'r2', amount: 1_000, now: later(2) });
      expect(p.operationRequestedWith('refund', 'k-again')?.id).to.equal('r1');
      expect(p.operationRequestedWith('refund', 'k-other')).to.equal(null);
      expect(p.operationRequestedWith('capture', 'k-first'), 'keys are per operation type, as per route').to.equal(null);
      expect(p.operation('r2')?.amount).to.equal(1_000);
      expect(p.operation('r3')).to.equal(null);
    });

    it('one full refund emits payment.refunded', () => {
      const p = capturedPayment();
      p.refund({ operationId: 'r', now: T0 });
      expect(p.pullEvents().map((e) => e.type)).to.deep.equal(['payment.refunded']);
    });

    it('refunds only what a partial capture took', () => {
      const p = authorizedPayment();
      p.capture({ operationId: 'c', amount: 4_000, now: T0 });
      expect(errorOf(() => p.refund({ operationId: 'r', amount: 4_001, now: T0 })).code).to.equal('amount_exceeds_available');
      p.refund({ operationId: 'r', amount: 4_000, now: T0 });
      expect(p.toPrimitives().refundStatus).to.equal('full');
    });

    it('more than refundable -> amount_exceeds_available; after a full refund -> invalid_state', () => {
      const p = capturedPayment();
      expect(errorOf(() => p.refund({ operationId: 'r', amount: 10_001, now: T0 })).code).to.equal('amount_exceeds_available');
      p.refund({ operationId: 'r', now: T0 });
      expect(errorOf(() => p.refund({ operationId: 'r2', amount: 1, now: T0 })).code).to.equal('invalid_state');
    });

    it('an authorized (uncaptured) payment cannot be refunded', () => {
      expect(errorOf(() => authorizedPayment().refund({ operationId: 'r', now: T0 })).code).to.equal('invalid_state');
    });

    it('boleto refund -> boleto_refund_not_supported with guidance', () => {
      const p = withPrimitives(capturedPayment(), { methodType: 'boleto' });
      const e = errorOf(() => p.refund({ operationId: 'r', now: T0 }));
      expect(e.code).to.equal('boleto_refund_not_supported');
      expect(e.meta.guidance).to.equal('return_by_pix_or_bank_transfer');
      expect(e.message).to.match(/Pix or bank transfer/);
    });
  });

  describe('acquirer fraud review decision', () => {
    it('accepted with automatic capture -> captured, then fraud_review_resolved', () => {
      const p = authorizedPayment({ captureMethod: 'automatic' }, true);
      p.resolveFraudReview({ decision: 'accepted', operationId: 'op', now: T0 });
      expect(p.status).to.equal('captured');
      expect(p.capturedAmount).to.equal(10_000);
      const events = p.pullEvents();
      expect(events.map((e) => e.type)).to.deep.equal(['payment.captured', 'payment.fraud_review_resolved']);
      expect(events[1]!.payment.fraudReview!.status).to.equal('accepted');
      expect(events[1]!.previousAttributes).to.deep.equal({ fraudReview: { status: 'pending', openedAt: T0.toISOString(), resolvedAt: null } });
    });

    it('accepted with manual capture -> stays authorized', () => {
      const p = authorizedPayment({ captureMethod: 'manual' }, true);
      p.resolveFraudReview({ decision: 'accepted', operationId: 'op', now: T0 });
      expect(p.status).to.equal('authorized');
      expect(p.pullEvents().map((e) => e.type)).to.deep.equal(['payment.fraud_review_resolved']);
    });

    it('rejected -> voided', () => {
      const p = authorizedPayment({ captureMethod: 'automatic' }, true);
      p.resolveFraudReview({ decision: 'rejected', operationId: 'op', now: T0 });
      expect(p.status).to.equal('voided');
      expect(p.pullEvents().map((e) => e.type)).to.deep.equal(['payment.voided', 'payment.fraud_review_resolved']);
    });

    it('is resolved once per payment', () => {
      const p = authorizedPayment({}, true);
      p.capture({ operationId: 'c', now: T0 });
      expect(errorOf(() => p.resolveFraudReview({ decision: 'accepted', operationId: 'op', now: T0 })).code).to.equal('invalid_state');
    });
  });

  describe('allowedActions', () => {
    it('lists what is possible in each situation', () => {
      expect(processingPayment().allowedActions(T0)).to.deep.equal([]);
      expect(authorizedPayment().allowedActions(T0)).to.deep.equal(['capture', 'void']);
      expect(authorizedPayment().allowedActions(later(16 * DAY))).to.deep.equal(['void']);
      expect(capturedPayment().allowedActions(T0)).to.deep.equal(['refund']);
      const refunded = capturedPayment();
      refunded.refund({ operationId: 'r', now: T0 });
      expect(refunded.allowedActions(T0)).to.deep.equal([]);
      expect(authorizedPayment({ captureMethod: 'automatic' }, true).allowedActions(T0)).to.deep.equal(['capture', 'void']);
    });
  });

  it('round-trips through primitives without sharing state', () => {
    const p = capturedPayment();
    const copy = Payment.fromPrimitives(p.toPrimitives());
    copy.refund({ operationId: 'r', amount: 1, now: T0 });
    expect(p.refundedAmount).to.equal(0);
    expect(copy.refundedAmount).to.equal(1);
  });

  it('a payment stored before antifraud assessments existed reads with none, and can register one', () => {
    const { antifraud: _none, ...stored } = capturedPayment().toPrimitives();
    const old = Payment.fromPrimitives(stored as ReturnType<Payment['toPrimitives']>);
    expect(old.toPrimitives().antifraud).to.deep.equal([]);
    old.registerAntifraudAssessment({ id: 'afa_1', origin: 'acquirer', provider: 'p', providerStatus: 'accept', score: 5, triggeredRules: [], connectorAccountId: 'ca_1', now: T0 });
    expect(old.toPrimitives().antifraud.map((a) => [a.id, a.recommendation])).to.deep.equal([['afa_1', 'approve']]);
    expect(old.pullEvents().map((e) => e.type)).to.include('antifraud.assessment_completed');
  });
});

describe('Payment pre-authorization expiry notice', () => {
  const DAY_MS = 24 * 60 * 60 * 1000;
  const at = (ms: number) => new Date(T0.getTime() + ms);

  it('is due from 24 hours before the deadline, once, and emits payment.authorization_expiring', () => {
    const p = authorizedPayment();
    expect(p.isExpiryNoticeDue(at(14 * DAY_MS - 1))).to.equal(false);
    expect(p.isExpiryNoticeDue(at(14 * DAY_MS))).to.equal(true);
    p.noticeAuthorizationExpiring({ now: at(14 * DAY_MS), expiryAction: 'notify' });
    expect(p.status).to.equal('authorized');
    const [event] = p.pullEvents();
    expect(event!.type).to.equal('payment.authorization_expiring');
    expect(event!.payment).to.include({ status: 'authorized', expiryAction: 'notify', authorizationExpiresAt: at(15 * DAY_MS).toISOString() });
    expect(event!.previousAttributes).to.not.have.property('expiryNoticeAt');
    expect(p.isExpiryNoticeDue(at(14 * DAY_MS + 1))).to.equal(false);
    expect(() => p.noticeAuthorizationExpiring({ now: at(14 * DAY_MS + 1), expiryAction: 'notify' })).to.throw(DomainError);
  });

  it("records an acquirer's refusal of the capture or void action, and only for those actions after the notice", () => {
    const notifying = authorizedPayment();
    expect(() => notifying.recordExpiryActionRefused({ now: at(14 * DAY_MS), message: 'no' })).to.throw(DomainError); // no notice yet
    notifying.noticeAuthorizationExpiring({ now: at(14 * DAY_MS), expiryAction: 'notify' });
    expect(() => notifying.recordExpiryActionRefused({ now: at(14 * DAY_MS), message: 'no' })).to.throw(DomainError);

    const capturing = authorizedPayment();
    capturing.noticeAuthorizationExpiring({ now: at(14 * DAY_MS), expiryAction: 'capture' });
    capturing.pullEvents();
    capturing.recordExpiryActionRefused({ now: at(14 * DAY_MS + 1), message: 'refused (57)' });
    expect(capturing.toPrimitives().expiryActionRefusal).to.deep.equal({ at: at(14 * DAY_MS + 1).toISOString(), message: 'refused (57)' });
    expect(capturing.status).to.equal('authorized');
    expect(capturing.pullEvents()).to.deep.equal([]);
  });

  it('is never due for captured, automatic or expired authorizations', () => {
    expect(capturedPayment().isExpiryNoticeDue(at(14 * DAY_MS))).to.equal(false);
    expect(authorizedPayment().isExpiryNoticeDue(at(15 * DAY_MS + 1))).to.equal(false);
    const partial = authorizedPayment();
    partial.capture({ operationId: 'c', amount: 1, now: T0 });
    expect(partial.isExpiryNoticeDue(at(14 * DAY_MS))).to.equal(false);
  });
});
