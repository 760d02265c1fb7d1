import type { CardSummary, Payment, PaymentAttempt } from '../../domain/payment/payment';
import { priorityRouteGraph } from '../../domain/flow-run/direct-graph';
import { newFlowRun } from '../../domain/flow-run/flow-run';
import { stepFlowRun, type FlowStepResult } from '../../domain/flow-run/flow-step';
import type { FlowGraph } from '../../domain/flow/flow-graph';
import type { RoutableAccount } from '../../domain/payment/routing/direct-routing';
import type { InFlightRouting } from '../../domain/ports/payment-recovery';
import type { TenantScope } from '../../domain/shared/environment';
import { countDone } from '../shared/count-done';
import { runContext, type AcquirerDecision, type DriveInput } from './authorization-run';
import type { PaymentDeps } from './payment-deps';
import { RoutingLease, type PaymentRecoveryDeps } from './routing-lease';
import { RunAdvance } from './run-advance';

export type RecoveryResult = 'resolved' | 'lost_lease' | 'already_resolved';

/**
 * Finishes card payments whose creating process died (or stalled) between tx1 and tx2: they stay `processing`
 * with a routing row whose lease expired (the lease outlives the connector deadline, so a live request never
 * loses it). Each claimed payment (SKIP LOCKED + lease: several workers never take the same one) resumes its flow
 * run where tx1 left it, through the same executor as the request: every saved attempt is re-sent with the SAME
 * attempt id (the acquirer answers the original outcome and charges once), new ones are saved before their call,
 * and the run decides as it would have. The outcome and its events are recorded exactly as the normal path would,
 * only while the lease is still held. Unknown outcomes left behind (timeouts, saved attempts not re-sent because
 * an earlier one decided) go to reconciliation.
 */
export class RecoverStuckPayments {
  private readonly advance: RunAdvance;

  constructor(
    private readonly deps: PaymentDeps,
    private readonly recovery: PaymentRecoveryDeps,
  ) {
    this.advance = new RunAdvance(deps);
  }

  /** Claims and resolves up to `batch` stuck payments; returns how many this call resolved. */
  async run(batch = 20): Promise<number> {
    const claimed = await this.claim(batch);
    // Concurrently: each payment holds its own lease, and the lease of the last one of a batch worked one by one could
    // run out while the others wait for their acquirers' deadlines.
    return countDone(claimed.map((routing) => this.recover(routing)));
  }

  /** Leases up to `limit` stuck payments, newest money first, for a worker that works each as a task of its own. */
  async claim(limit: number): Promise<InFlightRouting[]> {
    const now = this.deps.clock.now();
    const leaseOwner = this.deps.ids.next('rcv_');
    return this.deps.transactor.run((tx) =>
      this.recovery.store.claimExpired(tx, { now, leaseOwner, leaseUntil: new Date(now.getTime() + this.recovery.graceMs), limit }),
    );
  }

  /** Resolves one claimed payment; true when this call recorded its outcome. */
  async recover(routing: InFlightRouting): Promise<boolean> {
    return (await this.resolve(routing)) === 'resolved';
  }

  private async resolve(routing: InFlightRouting): Promise<RecoveryResult> {
    const { scope } = routing;
    const lease = new RoutingLease(this.deps, this.recovery, routing.paymentId, routing.leaseOwner, null);
    const payment = await this.deps.transactor.read((tx) => this.deps.payments.find(tx, scope, routing.paymentId));
    if (!payment || payment.status !== 'processing') {
      // Recorded already (cannot normally happen: tx2 deletes the routing in the same transaction); just end it.
      await this.deps.transactor.run((tx) => lease.settle(tx, []));
      return 'already_resolved';
    }

    const accounts = await this.deps.connectors.accounts(scope);
    const { context, from } = await this.resumePoint(scope, payment, routing, accounts);
    const intents = lease.intents(routing.intents, { extendForSaved: true });
    const source = routing.request.source;
    const card = source ? { brand: source.brand ?? null, bin: source.type === 'card' ? (source.bin ?? null) : null } : null;
    const driven = await this.advance.drive({ scope, request: routing.request, card, context, from, intents });
    if (driven.handedOver) return 'lost_lease';
    // Sent by the dead process after a failure that a re-send has now turned into a decision: their outcome is
    // unknown, so they are reconciled (reversed if the acquirer authorized them).
    const slugOf = (id: string) => accounts.find((a) => a.id === id)?.connectorSlug ?? '';
    const leftovers = intents.notReused().map((intent) => unknownAttempt(intent.attemptId, intent.connectorAccountId, slugOf(intent.connectorAccountId), intent.startedAt));
    const attempts = [...driven.attempts, ...leftovers];

    const recordedRun = { ...driven, attempts };
    // The same tx2 as the request path's (run-advance.ts): outcome and events, a wait parked, the calls' health.
    const recorded = await this.deps.transactor.run(async (tx) => {
      const { held, payment: current } = await lease.settleAndLock(tx, scope, attempts);
      if (!held || !current || current.status !== 'processing') return null;
      await this.advance.recordRecovered(tx, scope, current, recordedRun, routing.request);
      return current;
    });
    if (!recorded) return 'lost_lease';
    // Then what the request path does after tx2: a flow's capture node captures the authorization.
    await this.advance.captureAtNode(scope, recorded, recordedRun);
    await this.afterOutcome(scope, routing, payment.toPrimitives().card, driven.decision);
    return 'resolved';
  }

  /**
   * Where the run resumes: the call tx1 saved it waiting for, on the graph it started on (the published flow's
   * version, or direct routing's). A payment saved without a run (before runs were recorded), or whose flow version
   * can no longer be read, starts a run afresh over the accounts its routing had ranked, reusing the saved attempt ids.
   */
  private async resumePoint(scope: TenantScope, payment: Payment, routing: InFlightRouting, accounts: readonly RoutableAccount[]): Promise<{ context: DriveInput['context']; from: FlowStepResult }> {
    const random = this.deps.random ?? Math.random;
    const run = payment.view().flowRun;
    const wait = run?.waitingFor;
    if (run && run.status === 'waiting' && wait?.kind === 'acquirer_outcome') {
      const graph: FlowGraph | null = run.flow ? await (this.deps.flows?.graphOf(scope, run.flow.flowId, run.flow.version) ?? Promise.resolve(null)) : priorityRouteGraph(run.route?.candidates ?? routing.accountIds);
      if (graph) {
        return {
          context: runContext(payment, graph, accounts, random),
          from: { run, action: { kind: 'call_acquirer', nodeId: wait.nodeId, accountId: wait.accountId, attemptId: wait.attemptId } },
        };
      }
    }
    const context = runContext(payment, priorityRouteGraph(routing.accountIds), accounts, random);
    const saved = [...routing.intents];
    const idFor = (accountId: string) => {
      const index = saved.findIndex((intent) => intent.connectorAccountId === accountId);
      return index < 0 ? this.deps.ids.next('att_') : saved.splice(index, 1)[0]!.attemptId;
    };
    return { context, from: stepFlowRun({ ...context, now: this.deps.clock.now(), newAttemptId: idFor }, newFlowRun(null), { kind: 'start' }) };
  }

  /** As CreatePayment after tx2, best effort: the card-testing signal. */
  private async afterOutcome(scope: TenantScope, routing: InFlightRouting, card: CardSummary | null, decision: AcquirerDecision | null): Promise<void> {
    try {
      if (this.deps.security && (decision?.kind === 'approved' || decision?.kind === 'declined')) {
        const fingerprint = card?.last4 ? `${card.bin ?? ''}:${card.last4}:${card.expMonth ?? ''}/${card.expYear ?? ''}` : (routing.request.source?.token ?? routing.paymentId);
        const fraud = routing.request.fraudData ?? {};
        await this.deps.security.recordCardOutcome({ ...scope, clientIp: fraud.clientIp ?? null, deviceId: fraud.deviceId ?? null, cardFingerprint: fingerprint, declined: decision.kind === 'declined' });
      }
    } catch {
      // advisory
    }
  }
}

function unknownAttempt(id: string, accountId: string, slug: string, startedAt: string): PaymentAttempt {
  return {
    id,
    connectorAccountId: accountId,
    connectorSlug: slug,
    rawCode: null,
    classification: 'TIMEOUT',
    latencyMs: 0,
    outcome: 'timeout',
    message: 'Sent before an interruption; its outcome is unknown and is being reconciled.',
    startedAt,
  };
}
