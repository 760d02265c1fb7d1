import type { PaymentDeps } from './payment-deps';
import { paymentEventToOutbox } from './payment-object';

export interface FraudDecisionReport {
  readonly reportId: string;
  readonly connectorSlug: string;
  readonly acquirerPaymentId: string;
  /** The attempt id the authorization was sent with (its idempotency key). */
  readonly attemptId: string;
  readonly decision: 'accepted' | 'rejected';
}

export type FraudDecisionResult = 'resolved' | 'already_resolved' | 'unknown_payment';

/**
 * The acquirer's fraud review ended (core.v1.CoreNotifications/ReportFraudDecision). The report must match the
 * payment's attempt, connector and acquirer reference; a repeated report changes nothing (the review is resolved
 * once per payment). Accepted: captured (automatic capture) or stays authorized (manual); rejected: voided.
 * The acquirer acts on its own decision, so nothing is sent back to it.
 */
export class ResolveFraudDecision {
  constructor(private readonly deps: PaymentDeps) {}

  async execute(report: FraudDecisionReport): Promise<FraudDecisionResult> {
    return this.deps.transactor.run(async (tx) => {
      const payment = await this.deps.payments.findByAttemptId(tx, report.attemptId, { forUpdate: true });
      if (!payment) return 'unknown_payment';
      const p = payment.toPrimitives();
      const attempt = p.attempts.find((a) => a.id === report.attemptId);
      const matches =
        attempt?.connectorSlug === report.connectorSlug &&
        attempt.outcome === 'fraud_review' &&
        (!report.acquirerPaymentId || p.acquirer.acquirerPaymentId === report.acquirerPaymentId);
      if (!matches) return 'unknown_payment';
      if (p.fraudReview?.status !== 'pending' || p.status !== 'authorized') return 'already_resolved';
      payment.resolveFraudReview({ decision: report.decision, operationId: this.deps.ids.next('op_'), now: this.deps.clock.now() });
      await this.deps.payments.update(tx, payment);
      await this.deps.outbox.append(tx, payment.pullEvents().map(paymentEventToOutbox));
      return 'resolved';
    });
  }
}
