/**
 * POST /v1/payments/{id}/review: the merchant's decision on a payment held at a flow's Manual review node. The
 * decision is the run's review_decision input, given through ResumeFlowRun (the one way a waiting run goes on), so
 * the flow leaves the review node by its approved or declined exit and continues (it may call an acquirer) before the
 * answer. The payment's lock serializes two decisions: the first resumes the run, the second finds no review to decide
 * and is refused (409 invalid_state), changing nothing.
 */
import { MAX_REVIEW_NOTE_LENGTH } from '../../domain/flow-run/flow-review';
import { DomainError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentObject } from './payment-object';
import type { ResumeFlowRun } from './resume-flow-run';

export type ReviewDecision = 'approve' | 'decline';

export interface DecidePaymentReviewCommand {
  readonly scope: TenantScope;
  readonly paymentId: string;
  readonly decision: ReviewDecision;
  readonly note?: string | null;
}

/** The review node's exit each decision takes. */
const EXIT_OF: Record<ReviewDecision, 'approved' | 'declined'> = { approve: 'approved', decline: 'declined' };

export class DecidePaymentReview {
  constructor(private readonly resume: Pick<ResumeFlowRun, 'execute'>) {}

  async execute(command: DecidePaymentReviewCommand): Promise<PaymentObject> {
    const { scope, paymentId, decision } = command;
    if (!(decision in EXIT_OF)) throw new DomainError('validation_failed', 'decision is approve or decline.', { param: 'body.decision' });
    const note = command.note ?? null;
    if (note !== null && note.length > MAX_REVIEW_NOTE_LENGTH) {
      throw new DomainError('validation_failed', `note is at most ${MAX_REVIEW_NOTE_LENGTH} characters.`, { param: 'body.note' });
    }
    try {
      return await this.resume.execute({ scope, paymentId, input: { kind: 'review_decision', decision: EXIT_OF[decision], ...(note ? { note } : {}) } });
    } catch (error) {
      // The run waits for something else, or for nothing: not (or no longer) in review.
      if (error instanceof DomainError && error.code === 'invalid_state') {
        throw new DomainError('invalid_state', `Payment ${paymentId} is not held at a review step (it may have just been decided).`);
      }
      throw error;
    }
  }
}
