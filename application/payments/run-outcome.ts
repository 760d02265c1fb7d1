/**
 * What a driven flow run means for its payment, applied to the aggregate in the transaction that records it: the run
 * as it now stands, the acquirer's own antifraud analysis (before the outcome it came with, so a declined verdict's
 * payment.failed follows its antifraud.assessment_completed), then approved, declined or failed. A run that waits
 * leaves the payment's status as it is. Shared by creation, recovery and every resumption.
 */
import type { Payment, PaymentError } from '../../domain/payment/payment';
import type { FlowRunOutcome } from '../../domain/flow-run/flow-run';
import type { AcquirerDecision, CallFailureNote, DrivenRun } from './authorization-run';
import type { CheckoutSecrets } from '../../domain/ports/checkout-secrets';
import { expiryActionOf } from './notify-expiring-authorizations';

export interface SettleOptions {
  readonly now: Date;
  readonly newAssessmentId: () => string;
  /** Finished by a recovery worker after the request that started it was interrupted (said in the error message). */
  readonly recovered?: boolean;
  /** Issues the client secret of a payment that now awaits the buyer (absent: the installation has no public routes). */
  readonly clientSecrets?: Pick<CheckoutSecrets, 'issue'>;
}

export function settleRunOutcome(payment: Payment, driven: Pick<DrivenRun, 'step' | 'decision' | 'lastFailure'>, options: SettleOptions): void {
  const { step, decision, lastFailure } = driven;
  const { now } = options;
  payment.advanceRun(step.run, now);
  const analysis = decision?.kind === 'approved' ? decision.output.fraudAnalysis : decision?.kind === 'declined' ? decision.fraudAnalysis : undefined;
  if (analysis && decision) {
    payment.registerAntifraudAssessment({ id: options.newAssessmentId(), origin: 'acquirer', ...analysis, connectorAccountId: decision.account.id, now });
  }
  if (step.action.kind === 'wait' && step.action.wait.kind === 'bank_notice' && decision?.kind === 'charge_issued') {
    payment.issueBankCharge({
      charge: decision.charge,
      connectorAccountId: decision.account.id,
      connectorSlug: decision.account.connectorSlug,
      acquirerPaymentId: decision.acquirerPaymentId,
      now,
    });
  }
  // A three_ds node: the buyer authenticates now; the run's wait row holds the deadline (requires_action, nextAction three_ds).
  if (step.action.kind === 'wait' && step.action.wait.kind === 'three_ds_result' && payment.status === 'processing') {
    payment.requireThreeDs({ expiresAt: step.action.wait.expiresAt, now });
  }
  // Awaiting the buyer (a charge to pay, a 3DS to pass): the public routes serve the payment with its client secret.
  if (options.clientSecrets && payment.needsClientSecret()) payment.giveClientSecret(options.clientSecrets.issue(payment.id));
  if (step.action.kind !== 'end') return;
  const outcome = step.action.outcome;
  // The authentication time passed before the buyer's 3DS result: the payment is closed (canceled).
  if (payment.status === 'requires_action' && payment.view().threeDs?.status === 'pending' && outcome.reason === 'authentication_expired') {
    return payment.expireThreeDs({ message: outcome.message, now });
  }
  // Pix or boleto: the run left its bank_notice wait by the bank's confirmation (approved exit) or the charge lapsed.
  if (payment.status === 'requires_action' && payment.view().bankCharge) {
    if (outcome.result === 'approved') return payment.confirmBankPayment({ paidAmount: payment.amount, now });
    if (outcome.result === 'canceled') return payment.expireBankCharge({ now });
  }
  if (outcome.result === 'approved' && decision?.kind === 'approved') {
    const r = decision.output.references;
    payment.approve({
      connectorAccountId: decision.account.id,
      connectorSlug: decision.account.connectorSlug,
      references: { nsu: r.nsu ?? null, tid: r.tid ?? null, authorizationCode: r.authorizationCode ?? null, acquirerPaymentId: r.acquirerPaymentId },
      fraudReview: decision.output.fraudReviewPending,
      expiryAction: expiryActionOf(decision.account),
      now,
    });
  } else if (outcome.result === 'declined' && decision?.kind === 'declined') {
    // A retry node that gave up (attempts spent, irreversible, brand budget) says why in the routing stop reason.
    const stop = outcome.reason === 'issuer_declined' ? {} : { routingStopReason: outcome.reason };
    payment.decline({ rawCode: decision.rawCode, connectorAccountId: decision.account.id, connectorSlug: decision.account.connectorSlug, ...stop, now });
  } else {
    payment.fail({ error: errorOf(outcome, decision, lastFailure, options.recovered ?? false), routingStopReason: outcome.reason, now });
  }
}

/** The payment's error for a run that ended without an issuer's answer. */
function errorOf(outcome: FlowRunOutcome, decision: AcquirerDecision | null, lastFailure: CallFailureNote | null, recovered: boolean): PaymentError {
  if (outcome.reason === 'authentication_required' && decision) {
    return { code: 'authentication_required', message: outcome.message, stage: 'authorization', connectorAccount: { id: decision.account.id, name: decision.account.name } };
  }
  if (outcome.reason === 'all_accounts_failed') {
    const when = recovered ? ' (recovered after an interruption)' : '';
    return {
      code: 'connector_unavailable',
      message: lastFailure ? `No connector account could process the payment${when}; last error: ${lastFailure.message}` : `No connector account could process the payment${when}.`,
      stage: 'authorization',
      connectorAccount: lastFailure?.account ?? null,
    };
  }
  return { code: routingErrorCode(outcome.reason), message: outcome.message, stage: 'routing', connectorAccount: null };
}

function routingErrorCode(reason: string): string {
  if (reason === 'split_not_supported') return 'split_not_supported';
  if (reason === 'declined_by_flow') return 'declined_by_flow';
  // A flow's split node could not divide the payment (a recipient deleted since publishing, fixed shares above the amount).
  if (reason === 'split_invalid') return 'split_invalid';
  // A debit card that reached an acquirer without an authenticated three_ds node is not charged (creation rule 5).
  if (reason === 'authentication_required') return 'authentication_required';
  return 'no_connector_available';
}
