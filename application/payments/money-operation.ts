import type { Payment, PaymentOperation } from '../../domain/payment/payment';
import type { AcquirerGateway, OperationOutput } from '../../domain/ports/acquirer-gateway';
import type { ConnectorCredentials } from '../../domain/ports/connector-description';
import type { OperationIntent, OperationRequest, SettlementSchedule } from '../../domain/ports/payment-repositories';
import { isConnectorFailure } from '../../domain/shared/connector-failure';
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { ConnectorCall, PaymentDeps } from './payment-deps';
import type { Transaction } from '../../domain/ports/transactor';
import { paymentEventToOutbox, paymentObject, type PaymentObject } from './payment-object';

/** How long after a merchant's request ended without an answer the settlement worker first takes it up. */
export const FIRST_SETTLEMENT_DELAY_MS = 30_000;

export interface MoneyOperationPlan<P> {
  readonly kind: OperationIntent['kind'];
  /** The request body as the merchant sent it: kept with a pending operation, so that the worker repeats it. */
  readonly request: OperationRequest;
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
  apply(payment: Payment, plan: P, ctx: { operationId: string; now: Date; requestedAt: Date; acquirerReference: string | null; idempotencyKeys: string[] }): void;
}

/** Who runs the operation: a merchant's request, or the settlement worker repeating a pending one. */
type Origin =
  | { readonly by: 'merchant'; readonly idempotencyKey?: string }
  | { readonly by: 'settlement'; readonly operationId: string; readonly schedule: SettlementSchedule };

const operationInProgress = () =>
  // Transient: the edge frees the request's Idempotency-Key instead of replaying this answer.
  new DomainError('invalid_state', 'Another operation on this payment is in progress; retry in a moment.', { reason: 'operation_in_progress', transient: true });

/**
 * The pipeline of capture, void and refund for a merchant's request: tx1 locks the payment, checks the rules and
 * claims the operation (a concurrent operation gets 409), keeping what it is; the acquirer is called outside any
 * transaction, on the account that authorized, with the operation id as idempotency key; tx2 applies the outcome
 * and writes its events.
 *
 * An acquirer call that ends without an answer (a deadline after sending, a dropped connection) may have been
 * executed. Its operation then stays pending on the payment under its id, and is settled under that id, so the
 * acquirer answers the first execution instead of executing a second refund or capture: by the merchant repeating
 * the same request (same kind and amount), or by the settlement worker (SettlePendingOperations) repeating it on
 * its own. Any other money operation on the payment meanwhile answers 409 `operation_outcome_unknown`, naming the
 * pending one. A process that stops between the call and tx2 leaves the same state once its claim expires.
 *
 * The request's Idempotency-Key is bound to the operation when it is recorded: repeating the key after the worker
 * (or another repetition) settled it answers the payment instead of executing again.
 *
 * An operation is judged by the rules as of the moment it was first requested, in tx1, in tx2 and when resumed:
 * the acquirer may answer, or the merchant repeat, after a deadline the request itself met (a capture before the
 * authorization expired), and an operation the acquirer may have executed must stay recordable.
 */
export async function runMoneyOperation<P>(deps: PaymentDeps, scope: TenantScope, paymentId: string, plan: MoneyOperationPlan<P>, idempotencyKey?: string): Promise<PaymentObject> {
  const settled = await moneyOperation(deps, scope, paymentId, plan, { by: 'merchant', ...(idempotencyKey ? { idempotencyKey } : {}) });
  return settled!;
}

/**
 * Repeats the pending operation `operationId` as it was requested (the settlement worker). Null when it is no longer
 * pending or someone holds its claim; a failure reschedules it as `schedule` says.
 */
export function settleMoneyOperation<P>(
  deps: PaymentDeps,
  scope: TenantScope,
  paymentId: string,
  plan: MoneyOperationPlan<P>,
  pending: { operationId: string; schedule: SettlementSchedule },
): Promise<PaymentObject | null> {
  return moneyOperation(deps, scope, paymentId, plan, { by: 'settlement', ...pending });
}

async function moneyOperation<P>(deps: PaymentDeps, scope: TenantScope, paymentId: string, plan: MoneyOperationPlan<P>, origin: Origin): Promise<PaymentObject | null> {
  const claimMs = deps.operationClaimMs ?? 60_000;
  const claimId = deps.ids.next('clm_');
  const prepared = await deps.transactor.run(async (tx) => {
    const now = deps.clock.now();
    const found = await deps.payments.findWithPendingOperation(tx, scope, paymentId, { forUpdate: true, now });
    if (!found) throw new NotFoundError('payment', paymentId);
    const { payment, pending } = found;
    if (origin.by === 'settlement') {
      if (!pending || pending.active || pending.intent.operationId !== origin.operationId) return null;
    } else {
      const answered = origin.idempotencyKey ? payment.operationRequestedWith(plan.kind, origin.idempotencyKey) : null;
      if (answered) {
        assertSameRequest(answered, plan.request);
        return { kind: 'answered', payment } as const;
      }
      if (pending?.active) throw operationInProgress();
    }
    const requestedAt = pending?.intent.requestedAt ? new Date(pending.intent.requestedAt) : now;
    const p = plan.check(payment, requestedAt);
    const requested = plan.intent(p);
    if (pending && (pending.intent.kind !== requested.kind || pending.intent.amount !== requested.amount)) {
      const { kind, amount } = pending.intent;
      throw new DomainError('invalid_state', `An earlier ${kind}${amount === null ? '' : ` of ${amount}`} on this payment ended without an answer from the acquirer; repeat that request to settle it first.`, {
        reason: 'operation_outcome_unknown',
        pendingOperation: { kind, amount },
      });
    }
    const intent: OperationIntent = {
      ...pending?.intent,
      ...requested,
      operationId: pending?.intent.operationId ?? deps.ids.next('op_'),
      requestedAt: requestedAt.toISOString(),
      request: pending?.intent.request ?? plan.request,
      idempotencyKeys: withKey(pending?.intent.idempotencyKeys ?? [], origin.by === 'merchant' ? origin.idempotencyKey : undefined),
    };
    const claimed = await deps.payments.claimOperation(tx, scope, paymentId, { claimId, intent, until: new Date(now.getTime() + claimMs), now });
    if (!claimed) throw operationInProgress();
    return { kind: 'claimed', payment, p, intent, resumed: pending !== null } as const;
  });
  if (prepared === null) return null;
  if (prepared.kind === 'answered') return paymentObject(prepared.payment.toPrimitives());
  const { intent } = prepared;
  const { operationId } = intent;
  const requestedAt = new Date(intent.requestedAt!);

  let acquirerReference: string | null = null;
  /** The acquirer call's outcome, for the account's health; recorded with whatever settles this attempt. */
  let call: { accountId: string; call: ConnectorCall } | null = null;
  const recordCall = async (tx: Transaction) => {
    if (call) await deps.recordCall?.(tx, scope, call.accountId, call.call);
  };
  try {
    if (plan.needsAcquirer(prepared.p)) {
      const primitives = prepared.payment.toPrimitives();
      const accountId = primitives.connectorAccountId;
      const opened = accountId ? await deps.connectors.open(scope, accountId) : null;
      if (!opened) {
        throw new DomainError('connector_unavailable', `The connector account ${accountId ?? '(none)'} that authorized this payment is not available.`);
      }
      const started = deps.clock.now().getTime();
      const outcomeOf = (outcome: ConnectorCall['outcome']) => ({
        accountId: opened.account.id,
        call: { operation: plan.kind, outcome, latencyMs: Math.max(0, deps.clock.now().getTime() - started) },
      });
      const output = await plan
        .call(prepared.p, { gateway: opened.gateway, credentials: opened.credentials, operationId, acquirerPaymentId: primitives.acquirer.acquirerPaymentId ?? '' })
        .catch((error: unknown) => {
          if (isConnectorFailure(error)) call = outcomeOf(error.kind === 'timeout' ? 'timeout' : 'technical_failure');
          throw error;
        });
      call = outcomeOf(output.status === 'declined' ? 'declined' : 'approved');
      if (output.status === 'declined') {
        throw new DomainError('operation_declined', `The acquirer refused the operation (${output.rawCode}): ${output.message}`, { rawCode: output.rawCode });
      }
      acquirerReference = output.operationId;
    }
  } catch (error) {
    // The acquirer's refusal under this id, or a first call that provably never left, settles the operation:
    // nothing was executed. Otherwise an earlier call, or this one, may have been, and the operation stays pending.
    const refused = error instanceof DomainError && error.code === 'operation_declined';
    const mayHaveExecuted = !refused && (prepared.resumed || (isConnectorFailure(error) && error.outcomeUnknown));
    const schedule: SettlementSchedule =
      origin.by === 'settlement'
        ? origin.schedule
        : { settleAfter: new Date(deps.clock.now().getTime() + FIRST_SETTLEMENT_DELAY_MS), settleTries: intent.settleTries ?? 0 };
    await deps.transactor.run(async (tx) => {
      await (mayHaveExecuted
        ? deps.payments.releaseOperation(tx, scope, paymentId, claimId, schedule)
        : deps.payments.settleOperation(tx, scope, paymentId, { claimId }));
      await recordCall(tx);
    });
    if (isConnectorFailure(error) || (mayHaveExecuted && error instanceof DomainError && error.code === 'connector_unavailable')) {
      const kind = isConnectorFailure(error) ? error.kind : 'unavailable';
      throw new DomainError(
        'connector_unavailable',
        mayHaveExecuted
          ? `The acquirer did not answer (${kind}) and may have executed the operation; repeat the same request to settle it (it is never executed twice). The service also retries it on its own.`
          : `The acquirer did not complete the operation (${kind}); nothing was recorded, retry later.`,
        { outcomeUnknown: mayHaveExecuted },
      );
    }
    throw error;
  }

  const stored = await deps.transactor.run(async (tx) => {
    const payment = await deps.payments.find(tx, scope, paymentId, { forUpdate: true });
    if (!payment) throw new NotFoundError('payment', paymentId);
    // Recorded once, whoever settles it: a claimant whose claim expired mid-call may finish after another.
    if (!payment.operation(operationId)) {
      const now = deps.clock.now();
      plan.apply(payment, prepared.p, { operationId, now, requestedAt, acquirerReference, idempotencyKeys: [...(intent.idempotencyKeys ?? [])] });
      await deps.payments.update(tx, payment);
      const events = payment.pullEvents().map(paymentEventToOutbox);
      if (events.length) await deps.outbox.append(tx, events);
    }
    await deps.payments.settleOperation(tx, scope, paymentId, { operationId });
    await recordCall(tx);
    return payment;
  });
  return paymentObject(stored.toPrimitives());
}

function withKey(keys: readonly string[], key: string | undefined): string[] {
  return key && !keys.includes(key) ? [...keys, key] : [...keys];
}

/** A repeated Idempotency-Key must repeat the request it was first sent with (contract.md 3). */
function assertSameRequest(recorded: PaymentOperation, request: OperationRequest): void {
  if (request.amount !== undefined && request.amount !== recorded.amount) {
    throw new DomainError('idempotency_conflict', 'This Idempotency-Key was already used with a different request');
  }
}
