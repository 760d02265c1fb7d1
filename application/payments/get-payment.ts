import { NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from './payment-deps';
import { antifraudAssessmentObject, merchantPaymentObject, revealWith } from './payment-object';
import type { FlowRunState } from '../../domain/flow-run/flow-run';

/**
 * The full payment view: the resource plus why routing stopped, attempts, operations, refunds, the event
 * timeline, the money operation pending, if any, the published flow's steps when one routed it, and the actions
 * possible now, and the antifraud analyses registered on it (the acquirer's, when its account asks for one).
 * Disputes belong to another capability; they are present and empty so the shape is stable.
 */
export class GetPayment {
  constructor(private readonly deps: PaymentDeps) {}

  async execute(input: { scope: TenantScope; paymentId: string }) {
    return this.deps.transactor.read(async (tx) => {
      const found = await this.deps.payments.findWithPendingOperation(tx, input.scope, input.paymentId, { now: this.deps.clock.now() });
      if (!found) throw new NotFoundError('payment', input.paymentId);
      const { payment, pending } = found;
      const p = payment.toPrimitives();
      const timeline = await this.deps.queries.timeline(tx, input.scope, p.id, p.antifraud.map((a) => a.id));
      const operations = p.operations.map((o) => ({
        id: o.id,
        type: o.type,
        amount: o.amount,
        releasedAmount: o.releasedAmount,
        status: o.status,
        reason: o.reason,
        acquirerReference: o.acquirerReference,
        metadata: o.metadata,
        createdAt: o.createdAt,
      }));
      return {
        ...merchantPaymentObject(p, revealWith(this.deps.checkoutSecrets)),
        routing: { strategy: p.flowRun?.flow ? 'flow' : 'direct', stopReason: p.routingStopReason, hasFallback: p.attempts.length > 1, attemptCount: p.attempts.length },
        operations,
        refunds: operations.filter((o) => o.type === 'refund'),
        flowExecution: p.flowRun ? flowExecutionView(p.flowRun) : null,
        antifraud: p.antifraud.map((a) => antifraudAssessmentObject(a, p.id)),
        disputes: [],
        timeline,
        // A money operation in flight, or one whose acquirer call got no answer: the latter is settled by repeating
        // the same request (or by the settlement worker), and until then it is the only money action accepted.
        expiryActionRefusal: p.expiryActionRefusal,
        pendingOperation: pending
          ? {
              kind: pending.intent.kind,
              amount: pending.intent.amount,
              inFlight: pending.active,
              automaticRetryAt: pending.active ? null : (pending.intent.settleAfter ?? this.deps.clock.now().toISOString()),
            }
          : null,
        allowedActions: pending && !pending.active ? [pending.intent.kind] : payment.allowedActions(this.deps.clock.now()),
      };
    });
  }
}

/**
 * The payment's run as the full view shows it: the flow (direct routing's built-in graph when none was published),
 * where it stands and what it waits for, and each step with the port it left by, its timings and the acquirer calls
 * made there.
 */
function flowExecutionView(run: FlowRunState) {
  return {
    flowId: run.flow?.flowId ?? null,
    name: run.flow?.name ?? 'Direct routing',
    version: run.flow?.version ?? null,
    status: run.status,
    waitingFor: run.waitingFor,
    outcome: run.outcome,
    steps: run.steps.map((step) => ({
      nodeId: step.nodeId,
      type: step.type,
      port: step.exit,
      startedAt: step.startedAt,
      endedAt: step.endedAt,
      durationMs: Date.parse(step.endedAt) - Date.parse(step.startedAt),
      ...(step.calls ? { calls: step.calls.map((c) => ({ connectorAccountId: c.accountId, attemptId: c.attemptId, result: c.result, startedAt: c.startedAt, endedAt: c.endedAt })) } : {}),
      ...(step.note ? { note: step.note } : {}),
    })),
  };
}
