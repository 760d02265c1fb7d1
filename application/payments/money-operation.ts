import type { Payment } from '../../domain/payment/payment';
import type { OperationOutput } from '../../domain/ports/acquirer-gateway';
import type { AcquirerGateway } from '../../domain/ports/acquirer-gateway';
import type { ConnectorCredentials } from '../../domain/ports/connector-description';
import { isConnectorFailure } from '../../domain/shared/connector-failure';
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { OperationIntent } from '../../domain/ports/payment-repositories';
import type { PaymentDeps } from './payment-deps';
import { paymentEventToOutbox, paymentObject, type PaymentObject } from './payment-object';

export interface MoneyOperationPlan<P> {
  /**
   * Checks the rules on the locked payment as of `requestedAt` (throws a DomainError) and says what to ask the
   * acquirer, if anything.
   */
  check(payment: Payment, requestedAt: Date): P;
  /** What the acquirer is asked for: the same kind and amount as a pending operation resumes it. */
  intent(plan: P): Pick<OperationIntent, 'kind' | 'amount'>;
  /** False when nothing goes to the acquirer (e.g. canceling a checkout that never reached one). */
  needsAcquirer(plan: P): boolean;
  call(plan: P, ctx: { gateway: AcquirerGateway; credentials: ConnectorCredentials; operationId: string; acquirerPaymentId: string }): Promise<OperationOutput>;
  /**
   * Applies the outcome to the payment, re-checked under the lock of the second transaction by the rules as of
   * `requestedAt` (when the operation was first requested); `now` dates the record.
   */
  apply(payment: Payment, plan: P, ctx: { operationId: string; now: Date; requestedAt: Date; acquirerReference: string | null }): void;
}

const operationInProgress = () => new DomainError('invalid_state', 'Another operation on this payment is in progress; retry in a moment.', { reason: 'operation_in_progress' });

/**
 * The pipeline of capture, void and refund: tx1 locks the payment, checks the rules and claims the operation
 * (a concurrent operation gets 409), keeping what it is; the acquirer is called outside any transaction, on the
 * account that authorized, with the operation id as idempotency key; tx2 applies the outcome and writes its events.
 *
 * An acquirer call that ends without an answer (a deadline after sending, a dropped connection) may have been
 * executed. Its operation then stays pending on the payment under its id, and the merchant's repetition of the
 * same request (same kind and amount) resumes it under that id, so the acquirer answers the first execution
 * instead of executing a second refund or capture. Any other money operation on the payment meanwhile answers
 * 409 `operation_outcome_unknown`, naming the pending one. A process that stops between the call and tx2 leaves
 * the same state once its claim expires.
 *
 * An operation is judged by the rules as of the moment it was first requested, in tx1, in tx2 and when resumed:
 * the acquirer may answer, or the merchant repeat, after a deadline the request itself met (a capture before the
 * authorization expired), and an operation the acquirer may have executed must stay recordable.
 */
export async function runMoneyOperation<P>(deps: PaymentDeps, scope: TenantScope, paymentId: string, plan: MoneyOperationPlan<P>): Promise<PaymentObject> {
  const claimMs = deps.operationClaimMs ?? 60_000;
  const prepared = await deps.transactor.run(async (tx) => {
    const found = await deps.payments.findWithPendingOperation(tx, scope, paymentId, { forUpdate: true });
    if (!found) throw new NotFoundError('payment', paymentId);
    const { payment, pending } = found;
    if (pending?.active) throw operationInProgress();
    const requestedAt = pending?.intent.requestedAt ? new Date(pending.intent.requestedAt) : deps.clock.now();
    const p = plan.check(payment, requestedAt);
    const requested = plan.intent(p);
    if (pending && (pending.intent.kind !== requested.kind || pending.intent.amount !== requested.amount)) {
      const { kind, amount } = pending.intent;
      throw new DomainError('invalid_state', `An earlier ${kind}${amount === null ? '' : ` of ${amount}`} on this payment ended without an answer from the acquirer; repeat that request to settle it first.`, {
        reason: 'operation_outcome_unknown',
        pendingOperation: { kind, amount },
      });
    }
    const intent = { ...requested, operationId: pending?.intent.operationId ?? deps.ids.next('op_'), requestedAt: requestedAt.toISOString() };
    const claimed = await deps.payments.claimOperation(tx, scope, paymentId, intent, new Date(deps.clock.now().getTime() + claimMs));
    if (!claimed) throw operationInProgress();
    return { payment, p, operationId: intent.operationId, requestedAt };
  });
  const { operationId, requestedAt } = prepared;

  let acquirerReference: string | null = null;
  try {
    if (plan.needsAcquirer(prepared.p)) {
      const primitives = prepared.payment.toPrimitives();
      const accountId = primitives.connectorAccountId;
      const opened = accountId ? await deps.connectors.open(scope, accountId) : null;
      if (!opened) {
        throw new DomainError('connector_unavailable', `The connector account ${accountId ?? '(none)'} that authorized this payment is not available.`);
      }
      const output = await plan.call(prepared.p, {
        gateway: opened.gateway,
        credentials: opened.credentials,
        operationId,
        acquirerPaymentId: primitives.acquirer.acquirerPaymentId ?? '',
      });
      if (output.status === 'declined') {
        throw new DomainError('operation_declined', `The acquirer refused the operation (${output.rawCode}): ${output.message}`, { rawCode: output.rawCode });
      }
      acquirerReference = output.operationId;
    }
  } catch (error) {
    const outcomeUnknown = isConnectorFailure(error) && error.outcomeUnknown;
    await deps.transactor.run((tx) => deps.payments.releaseOperation(tx, scope, paymentId, operationId, !outcomeUnknown));
    if (isConnectorFailure(error)) {
      throw new DomainError(
        'connector_unavailable',
        outcomeUnknown
          ? `The acquirer did not answer (${error.kind}) and may have executed the operation; repeat the same request to settle it (it is never executed twice).`
          : `The acquirer did not complete the operation (${error.kind}); nothing was recorded, retry later.`,
        { outcomeUnknown },
      );
    }
    throw error;
  }

  const stored = await deps.transactor.run(async (tx) => {
    const payment = await deps.payments.find(tx, scope, paymentId, { forUpdate: true });
    if (!payment) throw new NotFoundError('payment', paymentId);
    plan.apply(payment, prepared.p, { operationId, now: deps.clock.now(), requestedAt, acquirerReference });
    await deps.payments.update(tx, payment);
    await deps.payments.releaseOperation(tx, scope, paymentId, operationId, true);
    const events = payment.pullEvents().map(paymentEventToOutbox);
    if (events.length) await deps.outbox.append(tx, events);
    return payment;
  });
  return paymentObject(stored.toPrimitives());
}
