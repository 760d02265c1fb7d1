import type { DeepReadonly } from '../shared/deep-readonly';
import { DomainError } from '../shared/domain-error';
import { cloneJson } from '../shared/clone-json';
import type { PaymentDomainEvent } from './payment.events';
import type { PaymentStatus } from './payment.transitions';
import type { AttemptReconciliation, OperationType, PaymentAction, PaymentAttempt, PaymentOperation, PaymentPrimitives } from './payment.primitives';
import { PaymentInternals } from './payment-internals';
import { isLegacyFlowRecord, runOfLegacyRecord } from '../flow-run/legacy-run';
import type { FlowRunState } from '../flow-run/flow-run';
import type { ThreeDsExit } from './three-ds-eci';
import { newCardPaymentState, type CreateCardPaymentInput } from './payment-creation';
import * as authorization from './payment-authorization';
import * as operations from './payment-operations';
import * as expiry from './payment-expiry';
import * as fraudReview from './payment-fraud-review';
import * as checkout from './payment-checkout';
import * as bankCharge from './payment-bank-charge';
import * as threeDs from './payment-three-ds';
import { giveClientSecret, needsClientSecret, type StoredClientSecret } from './payment-client-secret';
import { recordFlowNodeResults } from './payment-flow-nodes';

// The aggregate's vocabulary, importable from here as before the aggregate was split by concern.
export { CURRENCIES, MAX_PAYMENT_AMOUNT, METHOD_TYPES, MIT_TYPES, isOutcomeUnknown } from './payment.primitives';
export type {
  AcquirerReferences,
  AttemptOutcome,
  AttemptReconciliation,
  AttemptReconciliationStatus,
  CaptureMethod,
  CardSummary,
  Currency,
  ExpiryAction,
  FraudReview,
  FraudReviewStatus,
  Initiator,
  MethodType,
  MitType,
  OperationType,
  PaymentAction,
  PaymentAttempt,
  PaymentDecline,
  PaymentError,
  PaymentFlowRun,
  PaymentOperation,
  PaymentPrimitives,
  RefundStatus,
  SplitEntry,
} from './payment.primitives';
export { classifiedDecline } from './payment-authorization';
export { EXPIRY_NOTICE_MS, authorizationCaptureDeadline } from './payment-expiry';
export type { CreateCardPaymentInput } from './payment-creation';
export type { BankCharge, BoletoCharge, LatePayment, PixCharge } from './bank-charge';

const clone = cloneJson;

/**
 * The payment aggregate. Every status move goes through the transition table; each rule of the spec that is not
 * about the status alone (capture method, deadlines, amounts, fraud review) is checked here, once. Changes are
 * recorded as events with previousAttributes; `pullEvents()` hands them to the outbox writer.
 *
 * Each concern keeps its rules in its own file (payment-creation, payment-authorization, payment-operations,
 * payment-expiry, payment-fraud-review) working on the aggregate's internals (payment-internals); this class is
 * the one way in.
 */
export class Payment {
  private constructor(private readonly internals: PaymentInternals) {}

  private get state(): PaymentPrimitives {
    return this.internals.state;
  }

  static createCard(input: CreateCardPaymentInput): Payment {
    return new Payment(new PaymentInternals(newCardPaymentState(input)));
  }

  /** A transparent checkout payment: requires_payment_method until the buyer's card arrives (payment-checkout.ts). */
  static openCheckout(input: checkout.OpenCheckoutInput): Payment {
    return new Payment(new PaymentInternals(checkout.newCheckoutPaymentState(input)));
  }

  static fromPrimitives(primitives: PaymentPrimitives): Payment {
    return new Payment(
      new PaymentInternals({
        ...clone(primitives),
        expiryNoticeAt: primitives.expiryNoticeAt ?? null,
        expiryActionRefusal: primitives.expiryActionRefusal ?? null,
        flowRun: isLegacyFlowRecord(primitives.flowRun) ? runOfLegacyRecord(primitives.flowRun, primitives.updatedAt) : (primitives.flowRun ?? null),
        antifraud: primitives.antifraud ?? [],
      }),
    );
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
    return this.internals.pullEvents();
  }

  // ---- authorization outcome (payment-authorization.ts) -------------------------------------------------------

  /** A try on one account; technical failures and timeouts are recorded here and routing moves on. */
  recordAttempt(attempt: PaymentAttempt): void {
    authorization.recordAttempt(this.internals, attempt);
  }

  /** The background reconciliation of an unknown-outcome attempt progressed or ended (no event). */
  recordAttemptReconciliation(attemptId: string, reconciliation: AttemptReconciliation, now: Date): void {
    authorization.recordAttemptReconciliation(this.internals, attemptId, reconciliation, now);
  }

  /** The acquirer approved: captured at once, or authorized until the capture deadline, or held for fraud review. */
  approve(input: authorization.ApproveInput): void {
    authorization.approve(this.internals, input);
  }

  /**
   * The issuer declined: the payment ends, and routing stops (an issuer answer is not a technical failure). In the
   * transparent checkout a reversible decline with attempts left returns it to requires_payment_method instead.
   */
  decline(input: authorization.DeclineInput): void {
    if (this.state.checkout) checkout.declineAttempt(this.internals, input);
    else authorization.decline(this.internals, input);
  }

  /** No account could process it (all failed technically, none available, split_not_supported ...). */
  fail(input: authorization.FailInput): void {
    if (this.state.checkout) checkout.failAttempt(this.internals, input);
    else authorization.fail(this.internals, input);
  }

  /**
   * The payment's flow run as the executor left it after a step (what it waits for, the steps taken). Not a change of
   * the payment's status: that follows from the run's outcome through approve, decline or fail.
   */
  advanceRun(run: FlowRunState, now: Date): void {
    const recorded = this.internals.state.flowRun?.steps.length ?? 0;
    // The step function returns a new run each step and never changes one it returned: kept as is, not copied.
    this.internals.state.flowRun = run;
    this.internals.state.updatedAt = now.toISOString();
    // Each webhook node the run went through since it was last saved notifies once (steps are only ever appended).
    for (const step of run.steps.slice(recorded)) {
      if (step.type !== 'webhook') continue;
      const s = this.internals.state;
      this.internals.recordEvent({
        type: 'flow.notification',
        paymentId: s.id,
        organizationId: s.organizationId,
        environment: s.environment,
        occurredAt: now,
        previousAttributes: {},
        payment: cloneJson(s),
        notification: { nodeId: step.nodeId, data: step.notification ?? {} },
      });
    }
    recordFlowNodeResults(this.internals, run.steps.slice(recorded), now);
  }

  // ---- transparent checkout (payment-checkout.ts) -------------------------------------------------------------

  /** A card for the next attempt: counted, and the payment goes to processing with the attempt's new run. */
  confirmCheckoutAttempt(input: checkout.ConfirmAttemptInput): void {
    checkout.confirmAttempt(this.internals, input);
  }

  /** The checkout's deadline passed with no card approved: canceled, payment.canceled. */
  expireCheckout(now: Date): void {
    checkout.expireCheckout(this.internals, now);
  }

  /** Emits payment.checkout_not_configured once per reason; false when this reason was already reported. */
  recordCheckoutNotConfigured(input: checkout.CheckoutNotConfiguredInput): boolean {
    return checkout.recordCheckoutNotConfigured(this.internals, input);
  }

  // ---- Client secret (payment-client-secret.ts) --------------------------------------------------------------

  /** Whether the payment now awaits the buyer without a client secret: give it one before it is saved. */
  needsClientSecret(): boolean {
    return needsClientSecret(this.internals.state);
  }

  giveClientSecret(secret: StoredClientSecret): void {
    giveClientSecret(this.internals, secret);
  }

  // ---- 3-D Secure (payment-three-ds.ts) ----------------------------------------------------------------------

  /** The run waits for the buyer's 3DS result: requires_action (nextAction three_ds) until the deadline. */
  requireThreeDs(input: { readonly expiresAt: string | null; readonly now: Date }): void {
    threeDs.requireThreeDs(this.internals, input);
  }

  /** The 3DS result arrived in time: processing again, the flow goes on from the node's exit. */
  recordThreeDsResult(input: { readonly exit: ThreeDsExit; readonly eci: string | null; readonly now: Date }): void {
    threeDs.recordThreeDsResult(this.internals, input);
  }

  /** The authentication time passed: canceled, payment.canceled. */
  expireThreeDs(input: { readonly message: string; readonly now: Date }): void {
    threeDs.expireThreeDs(this.internals, input);
  }

  // ---- merchant operations (payment-operations.ts) ------------------------------------------------------------

  /** Validates a capture and returns the amount that would be captured; changes nothing. */
  assertCapturable(amount: number | undefined, now: Date): number {
    return operations.assertCapturable(this.internals, amount, now);
  }

  /** Full or partial capture; the deadline is judged at `requestedAt` (default `now`). */
  capture(input: operations.CaptureInput): PaymentOperation {
    return operations.capture(this.internals, input);
  }

  /** Validates a void; returns what it would do: cancel (nothing at the acquirer) or void (same connector). */
  assertVoidable(): 'cancel' | 'void' {
    return operations.assertVoidable(this.internals);
  }

  void(input: operations.VoidInput): PaymentOperation {
    return operations.voidPayment(this.internals, input);
  }

  /** Validates a refund and returns the amount; boleto money cannot go back through the service. */
  assertRefundable(amount: number | undefined): number {
    return operations.assertRefundable(this.internals, amount);
  }

  /** Several partial refunds up to the captured amount; the status stays captured (contract.md 7). */
  refund(input: operations.RefundInput): PaymentOperation {
    return operations.refund(this.internals, input);
  }

  // ---- pre-authorization expiry (payment-expiry.ts) -----------------------------------------------------------

  /** The notice is due 24 hours before the capture deadline of an authorized, uncaptured pre-authorization. */
  isExpiryNoticeDue(now: Date): boolean {
    return expiry.isExpiryNoticeDue(this.internals, now);
  }

  /** Emits payment.authorization_expiring once, with the action that will follow. */
  noticeAuthorizationExpiring(input: expiry.ExpiryNoticeInput): void {
    expiry.noticeAuthorizationExpiring(this.internals, input);
  }

  /** The acquirer refused the near-expiry capture or void: it is not asked again. */
  recordExpiryActionRefused(input: expiry.ExpiryActionRefusedInput): void {
    expiry.recordExpiryActionRefused(this.internals, input);
  }

  // ---- fraud (payment-fraud-review.ts) ------------------------------------------------------------------------

  /** The provider's decision on a sale held in review; emitted once per payment. */
  resolveFraudReview(input: fraudReview.FraudReviewDecisionInput): void {
    fraudReview.resolveFraudReview(this.internals, input);
  }

  /** Registers an antifraud analysis and emits antifraud.assessment_completed for it; not a change of state. */
  registerAntifraudAssessment(input: fraudReview.AntifraudAssessmentInput): void {
    fraudReview.registerAntifraudAssessment(this.internals, input);
  }

  // ---- Pix and boleto (payment-bank-charge.ts) ---------------------------------------------------------------

  /** The charge was issued at the bank: requires_action with the charge as nextAction. */
  issueBankCharge(input: bankCharge.IssueBankChargeInput): void {
    bankCharge.issueBankCharge(this.internals, input);
  }

  /** The bank confirmed the payment: captured, payment.captured. */
  confirmBankPayment(input: { readonly paidAmount: number; readonly now: Date }): void {
    bankCharge.confirmBankPayment(this.internals, input);
  }

  /** The charge lapsed unpaid: canceled, payment.canceled. */
  expireBankCharge(input: { readonly now: Date }): void {
    bankCharge.expireBankCharge(this.internals, input);
  }

  /** Money the bank reported after the payment ended unpaid; false when already recorded (or not canceled). */
  recordLatePayment(input: { readonly amount: number; readonly paidAt: string | null; readonly now: Date }): boolean {
    return bankCharge.recordLatePayment(this.internals, input);
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
}
