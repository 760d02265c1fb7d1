import type { CardSummary, Payment, PaymentAttempt } from '../../domain/payment/payment';
import { expiryActionOf } from './notify-expiring-authorizations';
import { requestForAccount } from './authorize-request';
import { classifyDecline } from '../../domain/payment/decline/classify-decline';
import type { AcquirerFraudAnalysis, AuthorizeOutput } from '../../domain/ports/acquirer-gateway';
import type { PaymentConnectorAccount } from '../../domain/ports/payment-connectors';
import type { InFlightRouting } from '../../domain/ports/payment-recovery';
import type { TenantScope } from '../../domain/shared/environment';
import { countDone } from '../shared/count-done';
import type { PaymentDeps } from './payment-deps';
import { NOT_SENT, callFailureOf, recordCalls, technicalAttempt } from './payment-attempts';
import { paymentEventToOutbox } from './payment-object';
import { RoutingLease, type PaymentRecoveryDeps } from './routing-lease';

type Decision =
  | { kind: 'approved'; account: PaymentConnectorAccount; output: Extract<AuthorizeOutput, { status: 'approved' }> }
  | { kind: 'declined'; account: PaymentConnectorAccount; rawCode: string; fraudAnalysis?: AcquirerFraudAnalysis }
  | { kind: 'authentication_required'; account: PaymentConnectorAccount };

export type RecoveryResult = 'resolved' | 'lost_lease' | 'already_resolved';

/**
 * Finishes card payments whose creating process died (or stalled) between tx1 and tx2: they stay `processing`
 * with a routing row whose lease expired (the lease outlives the connector deadline, so a live request never
 * loses it). Each claimed payment (SKIP LOCKED + lease: several workers never take the same one) is resolved as
 * the request would have: every saved attempt is re-sent with the SAME attempt id (the acquirer answers the
 * original outcome and charges once); the first approval or issuer decline decides; if every saved attempt is
 * still a technical failure or timeout, routing continues with the remaining ranked accounts (intent saved
 * before each call), and fails with `all_accounts_failed` when none remain. The outcome and its events are
 * recorded exactly as the normal path would, only while the lease is still held. Unknown outcomes left behind
 * (timeouts, saved attempts not re-sent because an earlier one decided) go to reconciliation.
 */
export class RecoverStuckPayments {
  constructor(
    private readonly deps: PaymentDeps,
    private readonly recovery: PaymentRecoveryDeps,
  ) {}

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

    const attempts: PaymentAttempt[] = [];
    let decision: Decision | null = null;
    let lastFailure: { account: { id: string; name: string }; message: string } | null = null;

    for (const intent of routing.intents) {
      if (decision) {
        // Sent by the dead process after a failure that a re-send has now turned into a decision: its outcome is
        // unknown, so it is reconciled (reversed if the acquirer authorized it).
        attempts.push(unknownAttempt(intent.attemptId, intent.connectorAccountId, await this.slugOf(scope, intent.connectorAccountId), intent.startedAt));
        continue;
      }
      if (!(await lease.extend())) return 'lost_lease';
      const step = await this.call(scope, routing, intent.attemptId, intent.connectorAccountId);
      if (step.attempt) attempts.push(step.attempt);
      if (step.decision) decision = step.decision;
      if (step.failure) lastFailure = step.failure;
    }

    if (!decision) {
      const tried = new Set(routing.intents.map((i) => i.connectorAccountId));
      for (const accountId of routing.accountIds) {
        if (tried.has(accountId)) continue;
        tried.add(accountId);
        const attemptId = await lease.attemptIdFor(accountId);
        if (attemptId === null) return 'lost_lease';
        const step = await this.call(scope, routing, attemptId, accountId);
        if (step.attempt) attempts.push(step.attempt);
        if (step.failure) lastFailure = step.failure;
        if (step.decision) {
          decision = step.decision;
          break;
        }
      }
    }

    const recorded = await this.deps.transactor.run(async (tx) => {
      const { held, payment: current } = await lease.settleAndLock(tx, scope, attempts);
      if (!held || !current || current.status !== 'processing') return false;
      for (const attempt of attempts) current.recordAttempt(attempt);
      this.apply(current, decision, lastFailure);
      await this.deps.payments.update(tx, current);
      const events = current.pullEvents().map(paymentEventToOutbox);
      if (events.length) await this.deps.outbox.append(tx, events);
      await recordCalls(this.deps, tx, scope, attempts);
      return true;
    });
    if (!recorded) return 'lost_lease';
    await this.afterOutcome(scope, routing, payment.toPrimitives().card, decision);
    return 'resolved';
  }

  private apply(current: Payment, decision: Decision | null, lastFailure: { account: { id: string; name: string }; message: string } | null): void {
    const now = this.deps.clock.now();
    // As on the request path: the acquirer's analysis is registered before the outcome it came with.
    const analysis = decision?.kind === 'approved' ? decision.output.fraudAnalysis : decision?.kind === 'declined' ? decision.fraudAnalysis : undefined;
    if (analysis && decision) current.registerAntifraudAssessment({ id: this.deps.ids.next('afa_'), origin: 'acquirer', ...analysis, connectorAccountId: decision.account.id, now });
    if (decision?.kind === 'approved') {
      const r = decision.output.references;
      current.approve({
        connectorAccountId: decision.account.id,
        connectorSlug: decision.account.connectorSlug,
        references: { nsu: r.nsu ?? null, tid: r.tid ?? null, authorizationCode: r.authorizationCode ?? null, acquirerPaymentId: r.acquirerPaymentId },
        fraudReview: decision.output.fraudReviewPending,
        expiryAction: expiryActionOf(decision.account),
        now,
      });
    } else if (decision?.kind === 'declined') {
      current.decline({ rawCode: decision.rawCode, connectorAccountId: decision.account.id, connectorSlug: decision.account.connectorSlug, now });
    } else if (decision?.kind === 'authentication_required') {
      current.fail({
        error: {
          code: 'authentication_required',
          message: 'The issuer requires 3DS authentication; publish a flow with a three_ds node to charge this card.',
          stage: 'authorization',
          connectorAccount: { id: decision.account.id, name: decision.account.name },
        },
        routingStopReason: 'authentication_required',
        now,
      });
    } else {
      current.fail({
        error: {
          code: 'connector_unavailable',
          message: lastFailure
            ? `No connector account could process the payment (recovered after an interruption); last error: ${lastFailure.message}`
            : 'No connector account could process the payment (recovered after an interruption).',
          stage: 'authorization',
          connectorAccount: lastFailure?.account ?? null,
        },
        routingStopReason: 'all_accounts_failed',
        now,
      });
    }
  }

  /** One Authorize with a given attempt id; mirrors CreatePayment's routing step. */
  private async call(
    scope: TenantScope,
    routing: InFlightRouting,
    attemptId: string,
    accountId: string,
  ): Promise<{ attempt?: PaymentAttempt; decision?: Decision; failure?: { account: { id: string; name: string }; message: string } }> {
    let opened: Awaited<ReturnType<PaymentDeps['connectors']['open']>>;
    try {
      opened = await this.deps.connectors.open(scope, accountId);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { attempt: technicalAttempt(attemptId, accountId, '', this.deps.clock.now(), 0, message, NOT_SENT), failure: { account: { id: accountId, name: accountId }, message } };
    }
    if (!opened) {
      const message = `connector account ${accountId} is not available`;
      return { attempt: technicalAttempt(attemptId, accountId, '', this.deps.clock.now(), 0, message, NOT_SENT), failure: { account: { id: accountId, name: accountId }, message } };
    }
    const { account, gateway, credentials } = opened;
    const started = this.deps.clock.now();
    let output: AuthorizeOutput;
    try {
      output = await gateway.authorize({ credentials, idempotencyKey: attemptId, ...requestForAccount(routing.request, account) });
    } catch (error) {
      const latencyMs = this.deps.clock.now().getTime() - started.getTime();
      const message = error instanceof Error ? error.message : String(error);
      return { attempt: technicalAttempt(attemptId, account.id, account.connectorSlug, started, latencyMs, message, callFailureOf(error)), failure: { account: { id: account.id, name: account.name }, message } };
    }
    const latencyMs = this.deps.clock.now().getTime() - started.getTime();
    const base = { id: attemptId, connectorAccountId: account.id, connectorSlug: account.connectorSlug, latencyMs, startedAt: started.toISOString() };
    if (output.status === 'approved') {
      return {
        attempt: { ...base, rawCode: output.rawCode, classification: output.fraudReviewPending ? 'FRAUD_REVIEW' : 'APPROVED', outcome: output.fraudReviewPending ? 'fraud_review' : 'approved', message: output.message || null },
        decision: { kind: 'approved', account, output },
      };
    }
    if (output.status === 'declined') {
      const source = routing.request.source;
      const card = { brand: source.brand ?? null, bin: source.type === 'card' ? (source.bin ?? null) : null };
      return {
        attempt: { ...base, rawCode: output.rawCode, classification: classifyDecline(output.rawCode, card).reason, outcome: 'declined', message: output.message || null },
        decision: { kind: 'declined', account, rawCode: output.rawCode, ...(output.fraudAnalysis ? { fraudAnalysis: output.fraudAnalysis } : {}) },
      };
    }
    return {
      attempt: { ...base, rawCode: output.rawCode || null, classification: 'AUTHENTICATION_REQUIRED', outcome: 'declined', message: output.message || null },
      decision: { kind: 'authentication_required', account },
    };
  }

  private async slugOf(scope: TenantScope, accountId: string): Promise<string> {
    try {
      return (await this.deps.connectors.accounts(scope)).find((a) => a.id === accountId)?.connectorSlug ?? '';
    } catch {
      return '';
    }
  }

  /** As CreatePayment after tx2, best effort: the card-testing signal. */
  private async afterOutcome(scope: TenantScope, routing: InFlightRouting, card: CardSummary | null, decision: Decision | null): Promise<void> {
    try {
      if (this.deps.security && (decision?.kind === 'approved' || decision?.kind === 'declined')) {
        const fingerprint = card?.last4 ? `${card.bin ?? ''}:${card.last4}:${card.expMonth ?? ''}/${card.expYear ?? ''}` : routing.request.source.token;
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
