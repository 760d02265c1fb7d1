/**
 * Fraud on a payment: the acquirer's review of a sale it held (decided by the provider, or by the merchant's
 * capture or void), and the antifraud analyses registered on the payment.
 */
import { InvalidStateError } from '../shared/domain-error';
import { cloneJson as clone } from '../shared/clone-json';
import { recommendationOf, type AntifraudAssessment, type AntifraudRecommendation } from './antifraud-assessment';
import type { PaymentInternals } from './payment-internals';
import type { PaymentOperation } from './payment.primitives';
import type { PaymentTrigger } from './payment.transitions';

export interface FraudReviewDecisionInput {
  decision: 'accepted' | 'rejected';
  now: Date;
  operationId: string;
}

export interface AntifraudAssessmentInput {
  id: string;
  origin: AntifraudAssessment['origin'];
  provider: string;
  /** The acquirer's provider status; null for a flow's antifraud node, whose provider answers a recommendation. */
  providerStatus: string | null;
  /** A flow node's recommendation as the provider gave it; without it, the one the provider status amounts to. */
  recommendation?: AntifraudRecommendation;
  score: number | null;
  triggeredRules: readonly string[];
  connectorAccountId: string;
  now: Date;
}

/** The provider's decision on a sale held in review; emitted once per payment. */
export function resolveFraudReview(payment: PaymentInternals, input: FraudReviewDecisionInput): void {
  if (payment.state.fraudReview?.status !== 'pending') {
    throw new InvalidStateError('fraud review', payment.state.fraudReview?.status ?? 'absent', `resolve_${input.decision}`);
  }
  const now = input.now.toISOString();
  let trigger: PaymentTrigger;
  if (input.decision === 'rejected') trigger = 'fraud_review_reject';
  else trigger = payment.state.captureMethod === 'automatic' ? 'fraud_review_accept_capture' : 'fraud_review_accept_keep';
  const operation: PaymentOperation | null =
    trigger === 'fraud_review_accept_keep'
      ? null
      : {
          id: input.operationId,
          type: trigger === 'fraud_review_reject' ? 'void' : 'capture',
          amount: payment.state.amount,
          releasedAmount: trigger === 'fraud_review_reject' ? payment.state.amount : 0,
          status: 'succeeded',
          reason: trigger === 'fraud_review_reject' ? 'fraud_review_rejected' : 'fraud_review_accepted',
          connectorAccountId: payment.state.connectorAccountId,
          acquirerReference: null,
          metadata: {},
          createdAt: now,
        };
  const before = payment.change(trigger, input.now, (s) => {
    s.fraudReview = { ...s.fraudReview!, status: input.decision, resolvedAt: now };
    if (trigger === 'fraud_review_accept_capture') s.capturedAmount = s.amount;
    if (operation) s.operations.push(operation);
  });
  // The state change comes first (as for a merchant decision), then the review outcome.
  if (trigger === 'fraud_review_accept_capture') payment.record('payment.captured');
  if (trigger === 'fraud_review_reject') payment.record('payment.voided');
  payment.recordFraudReviewResolved(before);
}

/**
 * Registers an antifraud analysis and emits antifraud.assessment_completed for it (spec, rule 7), a skipped one
 * included. Not a change of state: call it before the outcome it came with, so that a declined verdict's
 * payment.failed follows it.
 */
export function registerAntifraudAssessment(payment: PaymentInternals, input: AntifraudAssessmentInput): void {
  const assessment: AntifraudAssessment = {
    id: input.id,
    origin: input.origin,
    provider: input.provider,
    providerStatus: input.providerStatus,
    recommendation: input.recommendation ?? recommendationOf(input.providerStatus ?? ''),
    score: input.score,
    triggeredRules: [...input.triggeredRules],
    connectorAccountId: input.connectorAccountId,
    createdAt: input.now.toISOString(),
  };
  payment.state.antifraud = [...payment.state.antifraud, assessment];
  payment.recordEvent({
    type: 'antifraud.assessment_completed',
    paymentId: payment.state.id,
    organizationId: payment.state.organizationId,
    environment: payment.state.environment,
    occurredAt: input.now,
    previousAttributes: {},
    payment: clone(payment.state),
    assessmentId: assessment.id,
  });
}
