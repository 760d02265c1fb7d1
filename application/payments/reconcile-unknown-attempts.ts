import type { AttemptReconciliation, AttemptReconciliationStatus } from '../../domain/payment/payment';
import { requestForAccount } from './authorize-request';
import type { AcquirerGateway, AuthorizeOutput, OperationOutput } from '../../domain/ports/acquirer-gateway';
import type { ConnectorCredentials } from '../../domain/ports/connector-description';
import type { ReconciliationTask } from '../../domain/ports/payment-recovery';
import { isConnectorFailure } from '../../domain/shared/connector-failure';
import { countDone } from '../shared/count-done';
import { retryBackoffMs } from '../shared/retry-backoff';
import type { PaymentDeps } from './payment-deps';
import type { PaymentRecoveryDeps } from './routing-lease';

/** Re-sends before an attempt is left `unresolved` for a person to follow up. */
export const MAX_RECONCILIATION_TRIES = 8;

/**
 * Resolves attempts whose outcome stayed unknown (a timeout) on a payment that routing decided otherwise (a
 * fallback approved or declined, or every account failed): the acquirer may have authorized anyway, and the
 * cardholder must never be held twice. Authorize is re-sent with the timed-out attempt's id (the acquirer returns
 * the original outcome, or acts once now); an approval is reversed with the task's own fixed idempotency key:
 * Void while only authorized, Refund when the authorization captured. The result is recorded on the payment's
 * attempt (`attempts[].reconciliation`). No answer: retried with backoff, `unresolved` after
 * MAX_RECONCILIATION_TRIES. Tasks are claimed with SKIP LOCKED and a lease, so workers never run one twice at once;
 * a crash mid-way repeats the same idempotent calls.
 */
export class ReconcileUnknownAttempts {
  constructor(
    private readonly deps: PaymentDeps,
    private readonly recovery: PaymentRecoveryDeps,
  ) {}

  /**
   * Claims and works up to `batch` due tasks, concurrently (a re-send to an acquirer that is down waits for its
   * deadline; each task holds its own lease); returns how many reached a final status.
   */
  async run(batch = 20): Promise<number> {
    const tasks = await this.claim(batch);
    return countDone(tasks.map((task) => this.reconcile(task)));
  }

  /**
   * Leases up to `limit` due tasks, newest money first (the most recent double charge is the one a cardholder is
   * about to notice), for a worker that keeps a bounded number in flight and claims again as each one ends.
   */
  async claim(limit: number): Promise<ReconciliationTask[]> {
    const now = this.deps.clock.now();
    const leaseOwner = this.deps.ids.next('rcn_');
    return this.deps.transactor.run((tx) =>
      this.recovery.store.claimReconciliations(tx, { now, leaseOwner, leaseUntil: new Date(now.getTime() + this.recovery.graceMs * 2), limit }),
    );
  }

  /** Works one claimed task; true when it reached a final status. */
  async reconcile(task: ReconciliationTask): Promise<boolean> {
    const tries = task.tries + 1;
    const outcome = await this.resolve(task);
    const now = this.deps.clock.now();
    const status: AttemptReconciliationStatus =
      outcome.status === 'pending' && tries >= MAX_RECONCILIATION_TRIES ? 'unresolved' : outcome.status;
    const reconciliation: AttemptReconciliation = {
      status,
      tries,
      checkedAt: now.toISOString(),
      acquirerPaymentId: outcome.acquirerPaymentId ?? null,
      operationId: outcome.reversed ? task.reversalKey : null,
      amount: outcome.amount ?? 0,
      rawCode: outcome.rawCode ?? null,
      message: outcome.message ?? null,
    };
    await this.deps.transactor.run(async (tx) => {
      const held = await this.recovery.store.finishReconciliation(tx, {
        attemptId: task.attemptId,
        leaseOwner: task.leaseOwner,
        status,
        tries,
        nextAt: new Date(now.getTime() + retryBackoffMs(tries - 1)),
        detail: { ...reconciliation },
        now,
      });
      if (!held) return;
      const payment = await this.deps.payments.find(tx, task.scope, task.paymentId, { forUpdate: true });
      if (!payment || !payment.attempts.some((a) => a.id === task.attemptId)) return;
      payment.recordAttemptReconciliation(task.attemptId, reconciliation, now);
      await this.deps.payments.update(tx, payment);
    });
    return status !== 'pending';
  }

  private async resolve(task: ReconciliationTask): Promise<{
    status: AttemptReconciliationStatus;
    acquirerPaymentId?: string;
    amount?: number;
    rawCode?: string;
    message?: string;
    reversed?: boolean;
  }> {
    const opened = await this.deps.connectors.open(task.scope, task.connectorAccountId).catch(() => null);
    if (!opened) return { status: 'pending', message: `connector account ${task.connectorAccountId} is not available` };
    const { account, gateway, credentials } = opened;
    const source = task.request.source;
    if (!source) return this.resolveBankCharge(task, gateway, credentials);
    let answer: AuthorizeOutput;
    try {
      // The same request as the attempt it re-sends (same key): the account's antifraud setting included.
      answer = await gateway.authorize({ credentials, idempotencyKey: task.attemptId, ...requestForAccount(task.request, account), source });
    } catch (error) {
      return { status: 'pending', message: noAnswer(error) };
    }
    if (answer.status === 'declined') return { status: 'not_authorized', rawCode: answer.rawCode, ...(answer.message ? { message: answer.message } : {}) };
    if (answer.status === 'pending_action') return { status: 'not_authorized', rawCode: answer.rawCode, message: 'The acquirer asked for an action (3DS); nothing is held.' };
    const acquirerPaymentId = answer.references.acquirerPaymentId;
    const captured = answer.capturedAmount > 0;
    let reversal: OperationOutput;
    try {
      reversal = captured
        ? await gateway.refund({ credentials, idempotencyKey: task.reversalKey, acquirerPaymentId, amount: answer.capturedAmount })
        : await gateway.void({ credentials, idempotencyKey: task.reversalKey, acquirerPaymentId });
    } catch (error) {
      return { status: 'pending', acquirerPaymentId, message: `Authorized at the acquirer; the reversal got no answer yet: ${noAnswer(error)}` };
    }
    if (reversal.status === 'declined') {
      return { status: 'reversal_refused', acquirerPaymentId, rawCode: reversal.rawCode, message: reversal.message };
    }
    return {
      status: captured ? 'refunded' : 'voided',
      acquirerPaymentId,
      amount: reversal.amount || (captured ? answer.capturedAmount : task.request.amount),
      rawCode: reversal.rawCode,
      message: captured ? 'The timed-out attempt had been captured; refunded.' : 'The timed-out attempt had been authorized; voided.',
      reversed: true,
    };
  }

  /**
   * A Pix charge or boleto whose creation got no answer: the payment went on without it, so a charge the bank did
   * issue is removed before anyone pays it (a payer never saw its code). Paid anyway: left for a person to return.
   */
  private async resolveBankCharge(task: ReconciliationTask, gateway: AcquirerGateway, credentials: ConnectorCredentials): Promise<ReconciliationOutcome> {
    try {
      const found = await gateway.queryCharge({ credentials, idempotencyKey: task.attemptId });
      if (found.status === 'not_found') return { status: 'not_authorized', message: 'The bank issued no charge for this attempt.' };
      const acquirerPaymentId = found.references?.acquirerPaymentId ?? '';
      if (found.status === 'paid') return { status: 'reversal_refused', acquirerPaymentId, message: 'The charge issued by the timed-out attempt was paid; return the money to the payer.' };
      if (found.status !== 'awaiting_payment') return { status: 'not_authorized', acquirerPaymentId, message: `The charge is ${found.status}; nothing to remove.` };
      const removed = await gateway.cancelCharge({ credentials, idempotencyKey: task.reversalKey, acquirerPaymentId });
      if (removed.status === 'paid') return { status: 'reversal_refused', acquirerPaymentId, message: 'The charge was paid before it could be removed; return the money to the payer.' };
      return { status: 'voided', acquirerPaymentId, message: 'The charge issued by the timed-out attempt was removed at the bank.', reversed: true };
    } catch (error) {
      return { status: 'pending', message: noAnswer(error) };
    }
  }
}

interface ReconciliationOutcome {
  status: AttemptReconciliationStatus;
  acquirerPaymentId?: string;
  amount?: number;
  rawCode?: string;
  message?: string;
  reversed?: boolean;
}

function noAnswer(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (isConnectorFailure(error) ? `${error.kind}: ${message}` : message).slice(0, 500);
}
