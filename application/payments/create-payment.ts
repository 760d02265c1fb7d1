import type { CustomerPrimitives } from '../../domain/customer/customer';
import { Payment, type CaptureMethod, type CardSummary, type Currency, type Initiator, type MitType, type PaymentAttempt, type SplitEntry } from '../../domain/payment/payment';
import { classifyDecline } from '../../domain/payment/decline/classify-decline';
import { directRouting, type RoutableAccount, type RoutingPaymentProjection } from '../../domain/payment/routing/direct-routing';
import { flowRouting } from '../../domain/flow/flow-route';
import type { FlowPaymentFacts } from '../../domain/flow/flow-rules';
import type { PublishedFlow } from '../../domain/ports/flow-repository';
import type { AcquirerFraudAnalysis, AuthorizeOutput } from '../../domain/ports/acquirer-gateway';
import type { PaymentConnectorAccount } from '../../domain/ports/payment-connectors';
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import { IDEMPOTENCY_TTL_MS } from '../../domain/shared/idempotency';
import { canonicalIpAddress } from '../../domain/shared/ip-address';
import type { TenantScope } from '../../domain/shared/environment';
import type { Transaction } from '../../domain/ports/transactor';
import type { PaymentDeps } from './payment-deps';
import { authorizeRequest, requestForAccount, type FraudAnalysisInput } from './authorize-request';
import { expiryActionOf } from './notify-expiring-authorizations';
import { RoutingLease } from './routing-lease';
import { NOT_SENT, callFailureOf, recordCalls, technicalAttempt } from './payment-attempts';
import { paymentEventToOutbox, paymentObject, type PaymentObject } from './payment-object';

export interface CreateCardPaymentCommand {
  readonly scope: TenantScope;
  readonly amount: number;
  readonly currency?: Currency;
  readonly methodType?: 'card';
  readonly captureMethod?: CaptureMethod;
  readonly customerId?: string;
  readonly paymentMethodId?: string;
  readonly card?: {
    readonly token: string;
    readonly isNetworkToken?: boolean;
    readonly brand?: string;
    readonly bin?: string;
    readonly last4?: string;
    readonly expMonth?: number;
    readonly expYear?: number;
    readonly holderName?: string;
    readonly connectorAccountId?: string;
  };
  readonly installments?: number;
  readonly initiator?: Initiator;
  readonly mitType?: MitType;
  readonly softDescriptor?: string;
  readonly description?: string;
  readonly externalId?: string;
  readonly metadata?: Record<string, string | number | boolean | null>;
  readonly clientIp?: string;
  readonly clientUserAgent?: string;
  readonly deviceId?: string;
  readonly splits?: ReadonlyArray<{ recipientId: string; type: 'percentage' | 'fixed'; value: number; liableForChargeback?: boolean; chargeProcessingFee?: boolean }>;
  /** The split recipient that takes the cents left over by rounding percentage shares down. */
  readonly splitRemainderRecipientId?: string;
  /** What the acquirer's antifraud analysis takes besides the customer (spec, Payments rule 6). */
  readonly fraudAnalysis?: FraudAnalysisInput;
  /** The request's Idempotency-Key: the payment is bound to it in tx1 (see execute). */
  readonly idempotencyKey?: string;
  readonly items?: ReadonlyArray<{ sku?: string; name: string; quantity: number; amount: number }>;
  /** A published flow to route by instead of the environment's active one. */
  readonly flowId?: string;
}

interface ChargeSource {
  token: string;
  isNetworkToken: boolean;
  card: CardSummary;
  pinnedAccountId: string | null;
  /** The customer the payment is for: the body's, else the saved card's owner. */
  customerId: string | null;
  /** That customer's record, sent to acquirers (their antifraud analysis needs it). */
  customer: CustomerPrimitives | null;
}

/** The payer's IP address in canonical form (an IPv4-mapped IPv6 is its IPv4), so card-testing blocks see one address. */
function canonicalClientIp(clientIp: string | undefined): string | undefined {
  if (clientIp === undefined) return undefined;
  const canonical = canonicalIpAddress(clientIp);
  if (canonical === null) throw new DomainError('validation_failed', 'clientIp must be an IPv4 or IPv6 address.', { param: 'body.clientIp' });
  return canonical;
}

/**
 * Split shares in minor units. A percentage share (value in basis points) is rounded down; the cents the rounding
 * leaves over, all percentage shares together, go to the share of `remainderRecipientId` when given (which must be
 * one of the recipients), else stay with the merchant like the rest of the amount the shares do not cover.
 */
function splitEntries(amount: number, splits: CreateCardPaymentCommand['splits'], remainderRecipientId?: string): SplitEntry[] {
  const list = splits ?? [];
  const seen = new Set<string>();
  list.forEach((s, index) => {
    if (seen.has(s.recipientId)) throw new DomainError('validation_failed', `Recipient ${s.recipientId} has more than one split; give each recipient one share.`, { param: `body.splits[${index}].recipientId` });
    seen.add(s.recipientId);
    if (s.type === 'percentage' && s.value > 10_000) {
      throw new DomainError('validation_failed', `A percentage share is in basis points, at most 10000 (100 %); got ${s.value}.`, { param: `body.splits[${index}].value` });
    }
  });
  const entries = list.map((s) => ({
    recipientId: s.recipientId,
    type: s.type,
    value: s.value,
    amount: s.type === 'fixed' ? s.value : Math.floor((amount * s.value) / 10_000),
    liableForChargeback: s.liableForChargeback ?? false,
    chargeProcessingFee: s.chargeProcessingFee ?? false,
    commissionRateBps: 0,
    commissionFixedAmount: 0,
    netAmount: null,
    feeAmount: 0,
    capturedAmount: 0,
    refundedAmount: 0,
  }));
  if (remainderRecipientId !== undefined) {
    const taker = entries.find((e) => e.recipientId === remainderRecipientId);
    if (!taker) throw new DomainError('validation_failed', 'splitRemainderRecipientId must be the recipientId of one of the splits.', { param: 'body.splitRemainderRecipientId' });
    const percentages = list.filter((s) => s.type === 'percentage');
    const exact = Math.floor((amount * percentages.reduce((n, s) => n + s.value, 0)) / 10_000);
    const rounded = entries.filter((e) => e.type === 'percentage').reduce((n, e) => n + e.amount, 0);
    taker.amount += exact - rounded;
  }
  const total = entries.reduce((n, e) => n + e.amount, 0);
  if (total > amount) throw new DomainError('validation_failed', 'The split shares add up to more than the payment amount.', { param: 'body.splits' });
  return entries;
}

/**
 * Creates and processes a card payment with a vault token or a saved card, routed by the published flow named
 * in flowId or active in the environment (docs/flows.md), else directly; both give a ranked fallback list.
 * tx1 saves the payment in processing (and counts live usage); each account of the ranked list is then tried
 * outside any transaction, with the attempt id as idempotency key and the gateway's deadline; technical
 * failures and timeouts fall back to the next account, an issuer answer ends routing; tx2 records the attempts,
 * the outcome and its events.
 */
export class CreatePayment {
  constructor(private readonly deps: PaymentDeps) {}

  async execute(input: CreateCardPaymentCommand): Promise<PaymentObject> {
    // The payer's address enters here: from now on it is its canonical form, the one stored, sent and compared.
    const command: CreateCardPaymentCommand = { ...input, clientIp: canonicalClientIp(input.clientIp) };
    const { scope } = command;
    // The edge lets a repetition take over a key whose process died (its lock ran out); if that process had created
    // the payment, it is answered as it is now (recovery finishes its routing), never created and charged again.
    const earlier = command.idempotencyKey ? await this.paymentOfKey(scope, command.idempotencyKey) : null;
    if (earlier) return paymentObject(earlier.toPrimitives());
    // The shares' own rules first (pure); whether their recipients exist is read with the charge source.
    const splits = splitEntries(command.amount, command.splits, command.splitRemainderRecipientId);
    const source = await this.resolveSource(command, splits);
    await this.deps.security?.checkCardPayment({ ...scope, clientIp: command.clientIp ?? null, deviceId: command.deviceId ?? null });
    const [allAccounts, flow] = await Promise.all([this.deps.connectors.accounts(scope), this.publishedFlow(command)]);
    // A pinned account must be one of this environment's (spec, Errors: 404 for another environment's account). A
    // saved card's account that was removed since is not the merchant's request: routing reports it as unavailable.
    if (command.card?.connectorAccountId && !allAccounts.some((account) => account.id === command.card!.connectorAccountId)) {
      throw new NotFoundError('connector account', command.card.connectorAccountId);
    }
    const projection: RoutingPaymentProjection = {
      methodType: 'card',
      amount: command.amount,
      currency: command.currency ?? 'BRL',
      installments: command.installments ?? 1,
      hasSplits: splits.length > 0,
      pinnedConnectorAccountId: source.pinnedAccountId,
    };
    const routed = flow
      ? flowRouting({ graph: flow.graph, payment: projection, facts: flowFacts(command, source, projection), accounts: allAccounts, random: this.deps.random ?? Math.random })
      : null;
    const decision = routed ?? directRouting(projection, allAccounts);

    const payment = Payment.createCard({
      id: this.deps.ids.next('pay_'),
      organizationId: scope.organizationId,
      environment: scope.environment,
      amount: command.amount,
      currency: command.currency,
      captureMethod: command.captureMethod,
      customerId: source.customerId,
      paymentMethodId: command.paymentMethodId ?? null,
      card: source.card,
      installments: command.installments,
      initiator: command.initiator,
      mitType: command.mitType ?? null,
      softDescriptor: command.softDescriptor ?? null,
      description: command.description ?? null,
      externalId: command.externalId ?? null,
      metadata: command.metadata,
      clientIp: command.clientIp ?? null,
      clientUserAgent: command.clientUserAgent ?? null,
      deviceId: command.deviceId ?? null,
      splits,
      flowRun: flow && routed ? { flowId: flow.flowId, name: flow.name, version: flow.version, plan: routed.plan } : null,
      now: this.deps.clock.now(),
    });

    if (!decision.ok) {
      payment.fail({
        error: { code: routingErrorCode(decision.reason), message: decision.message, stage: 'routing', connectorAccount: null },
        routingStopReason: decision.reason,
        now: this.deps.clock.now(),
      });
    }

    // Crash recovery: the first attempt's id is saved with the payment, before any connector call.
    const lease = decision.ok && this.deps.recovery ? RoutingLease.forCreate(this.deps, this.deps.recovery, payment.id, decision.accounts[0]!.id) : null;
    const request = authorizeRequest(payment.view(), source, { items: command.items, customer: source.customer, fraudAnalysis: command.fraudAnalysis });
    await this.deps.transactor.run(async (tx) => {
      await this.deps.payments.insert(tx, payment);
      if (command.idempotencyKey) await this.deps.payments.bindIdempotencyKey(tx, scope, command.idempotencyKey, payment.id, this.deps.clock.now());
      if (lease && decision.ok) await lease.open(tx, scope, request, decision.accounts.map((a) => a.id));
      if (scope.environment === 'live') await this.deps.usage.countLivePayment(tx, scope.organizationId, payment.id, this.deps.clock.now());
      const events = payment.pullEvents().map(paymentEventToOutbox);
      if (events.length) await this.deps.outbox.append(tx, events);
    });
    if (!decision.ok) return paymentObject(payment.toPrimitives());

    const outcome = await this.route(scope, decision.accounts, source, lease, request);

    const stored = lease ? await this.recordHeld(scope, payment, outcome, lease) : await this.recordLocked(scope, payment.id, outcome);
    const final = stored.toPrimitives();
    await this.afterOutcome(scope, final, source, command);
    return paymentObject(final);
  }

  /**
   * tx2 for the lease holder, in ONE round trip: the lease check (routing row deleted, timed-out attempts queued for
   * reconciliation), the payment as tx1 left it plus the outcome, its events and the calls' health, sent together.
   * No need to read the payment again: while the lease is held nobody else changes a payment in routing. If a
   * recovery worker took it over (this request stalled past the grace period), the unit fails as a whole and the
   * request answers what is stored; the worker records the outcome.
   */
  private async recordHeld(scope: TenantScope, payment: Payment, outcome: RoutingOutcome, lease: RoutingLease): Promise<Payment> {
    try {
      await this.deps.transactor.run(async (tx) => {
        await lease.settleQueued(tx, outcome.attempts);
        await this.applyOutcome(tx, scope, payment, outcome);
      });
      return payment;
    } catch (error) {
      if (!lease.isLeaseLost(error)) throw error;
      const current = await this.deps.transactor.read((tx) => this.deps.payments.find(tx, scope, payment.id));
      if (!current) throw new Error(`payment ${payment.id} vanished between its two transactions`);
      return current;
    }
  }

  /** tx2 without crash recovery wired: the payment locked and read, then the outcome recorded. */
  private async recordLocked(scope: TenantScope, paymentId: string, outcome: RoutingOutcome): Promise<Payment> {
    return this.deps.transactor.run(async (tx) => {
      const current = await this.deps.payments.find(tx, scope, paymentId, { forUpdate: true });
      if (!current) throw new Error(`payment ${paymentId} vanished between its two transactions`);
      await this.applyOutcome(tx, scope, current, outcome);
      return current;
    });
  }

  private async applyOutcome(tx: Transaction, scope: TenantScope, current: Payment, outcome: RoutingOutcome): Promise<void> {
    for (const attempt of outcome.attempts) current.recordAttempt(attempt);
    const now = this.deps.clock.now();
    const o = outcome.result;
    // The acquirer's analysis first: a declined verdict's payment.failed follows its antifraud.assessment_completed.
    const analysis = o.kind === 'approved' ? o.output.fraudAnalysis : o.kind === 'declined' ? o.fraudAnalysis : undefined;
    if (analysis && o.kind !== 'failed') {
      current.registerAntifraudAssessment({ id: this.deps.ids.next('afa_'), origin: 'acquirer', ...analysis, connectorAccountId: o.account.id, now });
    }
    if (o.kind === 'approved') {
      current.approve({
        connectorAccountId: o.account.id,
        connectorSlug: o.account.connectorSlug,
        references: { nsu: o.output.references.nsu ?? null, tid: o.output.references.tid ?? null, authorizationCode: o.output.references.authorizationCode ?? null, acquirerPaymentId: o.output.references.acquirerPaymentId },
        fraudReview: o.output.fraudReviewPending,
        expiryAction: expiryActionOf(o.account),
        now,
      });
    } else if (o.kind === 'declined') {
      current.decline({ rawCode: o.rawCode, connectorAccountId: o.account.id, connectorSlug: o.account.connectorSlug, now });
    } else {
      current.fail({ error: o.error, routingStopReason: o.reason, now });
    }
    await this.deps.payments.update(tx, current);
    const events = current.pullEvents().map(paymentEventToOutbox);
    if (events.length) await this.deps.outbox.append(tx, events);
    await recordCalls(this.deps, tx, scope, outcome.attempts);
  }

  /** Best effort, after commit: card-testing signals never change the payment's answer. */
  private async afterOutcome(scope: TenantScope, p: import('../../domain/payment/payment').PaymentPrimitives, source: ChargeSource, command: CreateCardPaymentCommand): Promise<void> {
    try {
      if (this.deps.security && (p.decline || p.status !== 'failed')) {
        const card = source.card;
        const fingerprint = card.last4 ? `${card.bin ?? ''}:${card.last4}:${card.expMonth ?? ''}/${card.expYear ?? ''}` : source.token;
        await this.deps.security.recordCardOutcome({ ...scope, clientIp: command.clientIp ?? null, deviceId: command.deviceId ?? null, cardFingerprint: fingerprint, declined: p.decline !== null });
      }
    } catch {
      // signals are advisory; the payment is already recorded
    }
  }

  private paymentOfKey(scope: TenantScope, key: string): Promise<Payment | null> {
    const since = new Date(this.deps.clock.now().getTime() - IDEMPOTENCY_TTL_MS);
    return this.deps.transactor.read((tx) => this.deps.payments.findByIdempotencyKey(tx, scope, key, since));
  }

  /** The flow named by the body, or the environment's active one; null: direct routing. */
  private async publishedFlow(command: CreateCardPaymentCommand): Promise<PublishedFlow | null> {
    if (!this.deps.flows) {
      if (command.flowId) throw new DomainError('validation_failed', 'Flows are not available in this installation.', { param: 'body.flowId' });
      return null;
    }
    const flow = await this.deps.flows.forPayment(command.scope, command.flowId ?? null);
    if (command.flowId && !flow) {
      throw new DomainError('validation_failed', `Flow ${command.flowId} is not a published flow of this environment.`, { param: 'body.flowId' });
    }
    return flow;
  }

  private async resolveSource(command: CreateCardPaymentCommand, splits: readonly SplitEntry[]): Promise<ChargeSource> {
    const { scope } = command;
    return this.deps.transactor.read(async (tx) => {
      // Only a payment with splits pays for this lookup: one statement for all its recipients.
      if (splits.length > 0) await this.assertRecipientsExist(tx, scope, splits);
      let customer: CustomerPrimitives | null = null;
      if (command.customerId) {
        const found = await this.deps.customers.find(tx, scope, command.customerId);
        if (!found) throw new DomainError('resource_missing', `No such customer: ${command.customerId}`, { param: 'body.customerId' });
        customer = found.toPrimitives();
      }
      if (command.paymentMethodId) {
        if (command.card) throw new DomainError('validation_failed', 'Send either card or paymentMethodId, not both.', { param: 'body.card' });
        const method = await this.deps.paymentMethods.find(tx, scope, command.paymentMethodId);
        if (!method) throw new DomainError('resource_missing', `No such payment method: ${command.paymentMethodId}`, { param: 'body.paymentMethodId' });
        if (command.customerId && method.customerId !== command.customerId) {
          throw new DomainError('validation_failed', 'The payment method belongs to another customer.', { param: 'body.paymentMethodId' });
        }
        method.assertChargeable();
        const m = method.toPrimitives();
        // The saved card's owner, for the acquirer's antifraud data, when the body did not name the customer.
        customer ??= (await this.deps.customers.find(tx, scope, m.customerId))?.toPrimitives() ?? null;
        return { token: m.tokenReference.token, isNetworkToken: m.tokenReference.isNetworkToken, card: m.card, pinnedAccountId: m.tokenReference.connectorAccountId, customerId: m.customerId, customer };
      }
      if (!command.card) {
        // The transparent checkout (no card, no paymentMethodId) is another capability; not wired here.
        throw new DomainError('validation_failed', 'card.token or paymentMethodId is required for a card payment.', { param: 'body.card' });
      }
      const c = command.card;
      return {
        token: c.token,
        isNetworkToken: c.isNetworkToken ?? false,
        card: { brand: c.brand ?? null, bin: c.bin ?? null, last4: c.last4 ?? null, expMonth: c.expMonth ?? null, expYear: c.expYear ?? null, holderName: c.holderName ?? null },
        pinnedAccountId: c.connectorAccountId ?? null,
        customerId: command.customerId ?? null,
        customer,
      };
    });
  }

  /**
   * Each split must name a recipient of the payment's organization and environment; the first that does not is the
   * error's param (splitRemainderRecipientId is one of the splits' recipients, so it is checked with them).
   */
  private async assertRecipientsExist(tx: Transaction, scope: TenantScope, splits: readonly SplitEntry[]): Promise<void> {
    const existing = await this.deps.recipients.existingIds(tx, scope, splits.map((s) => s.recipientId));
    const missing = splits.flatMap((s, index) => (existing.has(s.recipientId) ? [] : [{ param: `body.splits[${index}].recipientId`, message: `No such recipient: ${s.recipientId}` }]));
    if (missing.length > 0) throw new DomainError('resource_missing', missing[0]!.message, { param: missing[0]!.param, details: missing });
  }

  private async route(
    scope: TenantScope,
    accounts: readonly RoutableAccount[],
    source: ChargeSource,
    lease: RoutingLease | null,
    request: ReturnType<typeof authorizeRequest>,
  ): Promise<RoutingOutcome> {
    const attempts: PaymentAttempt[] = [];
    let lastFailure: { account: { id: string; name: string }; message: string } | null = null;
    for (const candidate of accounts) {
      let opened: Awaited<ReturnType<PaymentDeps['connectors']['open']>>;
      let openFailure: string | null = null;
      try {
        opened = await this.deps.connectors.open(scope, candidate.id);
        if (!opened) openFailure = `the ${candidate.connectorSlug} adapter is not available in this installation`;
      } catch (error) {
        // credentials that cannot be read (key rotated, row gone) are this account's problem: try the next one
        opened = null;
        openFailure = `the account could not be opened: ${error instanceof Error ? error.message : String(error)}`;
      }
      if (!opened) {
        // Nothing was sent, but the account was in line: its attempt says why routing went past it.
        attempts.push(technicalAttempt(this.deps.ids.next('att_'), candidate.id, candidate.connectorSlug, this.deps.clock.now(), 0, `Not sent: ${openFailure}`, NOT_SENT));
        lastFailure = { account: { id: candidate.id, name: candidate.name ?? candidate.id }, message: openFailure! };
        continue;
      }
      const { account, gateway, credentials } = opened;
      const attemptId = lease ? await lease.attemptIdFor(account.id) : this.deps.ids.next('att_');
      if (attemptId === null) {
        // The lease was taken over: the worker holding it finishes the payment (tx2 records nothing for us).
        return { attempts, result: { kind: 'failed', reason: 'handed_over', error: { code: 'handed_over', message: 'Routing was taken over by recovery.', stage: 'authorization', connectorAccount: null } } };
      }
      const started = this.deps.clock.now();
      let output: AuthorizeOutput;
      try {
        output = await gateway.authorize({ credentials, idempotencyKey: attemptId, ...requestForAccount(request, account) });
      } catch (error) {
        const latencyMs = this.deps.clock.now().getTime() - started.getTime();
        const message = error instanceof Error ? error.message : String(error);
        attempts.push(technicalAttempt(attemptId, account.id, account.connectorSlug, started, latencyMs, message, callFailureOf(error)));
        lastFailure = { account: { id: account.id, name: account.name }, message };
        continue;
      }
      const latencyMs = this.deps.clock.now().getTime() - started.getTime();
      const base = { id: attemptId, connectorAccountId: account.id, connectorSlug: account.connectorSlug, latencyMs, startedAt: started.toISOString() };
      if (output.status === 'approved') {
        attempts.push({ ...base, rawCode: output.rawCode, classification: output.fraudReviewPending ? 'FRAUD_REVIEW' : 'APPROVED', outcome: output.fraudReviewPending ? 'fraud_review' : 'approved', message: output.message || null });
        return { attempts, result: { kind: 'approved', account, output } };
      }
      if (output.status === 'declined') {
        const c = classifyDecline(output.rawCode, source.card);
        attempts.push({ ...base, rawCode: output.rawCode, classification: c.reason, outcome: 'declined', message: output.message || null });
        return { attempts, result: { kind: 'declined', account, rawCode: output.rawCode, ...(output.fraudAnalysis ? { fraudAnalysis: output.fraudAnalysis } : {}) } };
      }
      // An action (3DS) is only reachable through a flow with a three_ds node; direct routing cannot pause for it.
      attempts.push({ ...base, rawCode: output.rawCode || null, classification: 'AUTHENTICATION_REQUIRED', outcome: 'declined', message: output.message || null });
      return {
        attempts,
        result: {
          kind: 'failed',
          reason: 'authentication_required',
          error: { code: 'authentication_required', message: 'The issuer requires 3DS authentication; publish a flow with a three_ds node to charge this card.', stage: 'authorization', connectorAccount: { id: account.id, name: account.name } },
        },
      };
    }
    return {
      attempts,
      result: {
        kind: 'failed',
        reason: 'all_accounts_failed',
        error: {
          code: 'connector_unavailable',
          message: lastFailure ? `No connector account could process the payment; last error: ${lastFailure.message}` : 'No connector account could be opened for the payment.',
          stage: 'authorization',
          connectorAccount: lastFailure?.account ?? null,
        },
      },
    };
  }
}

function routingErrorCode(reason: string): string {
  if (reason === 'split_not_supported') return 'split_not_supported';
  if (reason === 'declined_by_flow') return 'declined_by_flow';
  return 'no_connector_available';
}

/** What conditions and switches of a flow may look at. */
function flowFacts(command: CreateCardPaymentCommand, source: ChargeSource, projection: RoutingPaymentProjection): FlowPaymentFacts {
  return {
    amount: projection.amount,
    currency: projection.currency,
    installments: projection.installments,
    methodType: projection.methodType,
    captureMethod: command.captureMethod ?? 'automatic',
    initiator: command.initiator ?? 'customer',
    hasSplits: projection.hasSplits,
    customerId: source.customerId,
    cardBrand: source.card.brand,
    cardBin: source.card.bin,
    metadata: command.metadata ?? {},
  };
}

interface RoutingOutcome {
  attempts: PaymentAttempt[];
  result: RoutingResult;
}

type RoutingResult =
  | { kind: 'approved'; account: PaymentConnectorAccount; output: Extract<AuthorizeOutput, { status: 'approved' }> }
  | { kind: 'declined'; account: PaymentConnectorAccount; rawCode: string; fraudAnalysis?: AcquirerFraudAnalysis }
  | { kind: 'failed'; reason: string; error: { code: string; message: string; stage: string; connectorAccount: { id: string; name: string } | null } };
