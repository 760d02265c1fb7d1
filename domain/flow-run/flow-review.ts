/**
 * A payment held at a flow's Manual review node, as the merchant sees it (contract.md 7: status processing with
 * `review: {status: "pending"}`). Derived from the run alone: the run's wait says a review is pending, the review
 * node's step says how it was decided, so the review can never disagree with where the run stands.
 */
import type { FlowRunState } from './flow-run';

export const MAX_REVIEW_NOTE_LENGTH = 500;

export type PaymentReview =
  | { readonly status: 'pending'; readonly nodeId: string; readonly since: string }
  | { readonly status: 'approved' | 'declined'; readonly nodeId: string; readonly since: string; readonly decidedAt: string; readonly note: string | null };

/** The payment's review: pending while the run waits at a review node, else the last decision taken at one; null if none. */
export function reviewOf(run: Pick<FlowRunState, 'waitingFor' | 'steps'> | null | undefined): PaymentReview | null {
  if (!run) return null;
  const wait = run.waitingFor;
  if (wait?.kind === 'review_decision') return { status: 'pending', nodeId: wait.nodeId, since: wait.since };
  const decided = [...run.steps].reverse().find((step) => step.type === 'review' && (step.exit === 'approved' || step.exit === 'declined'));
  if (!decided) return null;
  return { status: decided.exit as 'approved' | 'declined', nodeId: decided.nodeId, since: decided.startedAt, decidedAt: decided.endedAt, note: decided.note ?? null };
}
