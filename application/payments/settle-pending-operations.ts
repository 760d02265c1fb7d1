import type { SettlementSchedule, UnsettledOperation } from '../../domain/ports/payment-repositories';
import { DomainError } from '../../domain/shared/domain-error';
import { countDone } from '../shared/count-done';
import { retryBackoffMs } from '../shared/retry-backoff';
import type { PaymentDeps } from './payment-deps';
import { settleMoneyOperation } from './money-operation';
import { planForIntent } from './money-operation-plans';

/**
 * Settles capture, void and refund requests whose acquirer call ended without an answer, when the merchant does
 * not repeat them first (`FIRST_SETTLEMENT_DELAY_MS` after the answer was lost): repeats each as it was requested,
 * under its first operation id, so the acquirer answers the first execution or executes it once now. The outcome is
 * recorded as the request would have recorded it (the payment's state, the operation, its event), with the
 * requests' Idempotency-Keys bound to it, so a merchant repeating one later gets the payment instead of a second
 * operation. An acquirer refusal ends the operation without a record (nothing was executed). No answer: tried again
 * with backoff, for as long as it takes: an operation that may have been executed never lapses.
 *
 * Each operation is taken with the same claim as a request, so a merchant's repetition and the worker never both
 * reach the acquirer; a worker that dies lets the claim expire.
 */
export class SettlePendingOperations {
  constructor(private readonly deps: PaymentDeps) {}

  /**
   * Settles up to `batch` due operations, concurrently (each may wait for an acquirer's deadline; each holds its own
   * claim); returns how many were settled (recorded or refused by the acquirer).
   */
  async run(batch = 20): Promise<number> {
    return countDone((await this.due(batch)).map((operation) => this.settle(operation)));
  }

  /**
   * Up to `limit` due operations, newest money first. Read, not claimed: `settle` takes each one's claim, so a
   * worker must not start the same operation twice at once (the task-pool worker keys tasks by operation id).
   */
  async due(limit: number): Promise<UnsettledOperation[]> {
    return this.deps.transactor.read((tx) => this.deps.payments.findUnsettledOperations(tx, this.deps.clock.now(), limit));
  }

  /** Settles one due operation; true when it was recorded or refused by the acquirer. */
  async settle({ scope, paymentId, intent }: UnsettledOperation): Promise<boolean> {
    const settleTries = (intent.settleTries ?? 0) + 1;
    // The merchant's failed request already waited 30 s: the worker's own retries wait 1 min, 2 min ... up to 1 hour.
    const schedule: SettlementSchedule = { settleTries, settleAfter: new Date(this.deps.clock.now().getTime() + retryBackoffMs(settleTries)) };
    try {
      const settled = await settleMoneyOperation(this.deps, scope, paymentId, planForIntent(intent), { operationId: intent.operationId, schedule });
      return settled !== null;
    } catch (error) {
      if (error instanceof DomainError && error.code === 'operation_declined') return true; // nothing was executed
      // A call that got no answer, or an account that is gone, was rescheduled by the pipeline as it released the
      // claim; a rule refused before any call, or a failure of the database, is rescheduled here, so the worker does
      // not spin on it.
      if (error instanceof DomainError && error.code === 'connector_unavailable') return false;
      await this.deps.transactor.run((tx) => this.deps.payments.postponeSettlement(tx, scope, paymentId, intent.operationId, schedule));
      if (!(error instanceof DomainError)) throw error;
      return false;
    }
  }
}
