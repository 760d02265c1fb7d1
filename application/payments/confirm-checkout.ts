/**
 * Confirmation of a transparent checkout payment with the buyer's card token (spec: POST /v1/payments/{id}/confirm
 * and its browser twin POST /v1/public/payments/{id}/confirm). Each card is one attempt that runs the flow again
 * (the payment's named flow, else the environment's active one, else direct routing), pinned to the account whose
 * vault tokenized it, through the same executor and recorder as creation: tx1 counts the attempt and saves the run
 * with its first call's attempt id under a routing lease, the calls go out outside any transaction, tx2 records the
 * outcome (payment-checkout.ts decides what a decline means for the checkout). The server confirm does no 3DS: a
 * three_ds node follows its unavailable exit (so debit is not approved there). The card's brand retry budget
 * (card-retry-budget.ts) holds the checkout as it holds a direct payment: a card over its brand's limit is not sent,
 * and the attempt ends the checkout as the direct payment ends (failed, routing.stopReason brand_retry_limit).
 */
import { SavedPaymentMethod } from '../../domain/customer/saved-payment-method';
import type { CustomerPrimitives } from '../../domain/customer/customer';
import { directRoutingGraph } from '../../domain/flow-run/direct-graph';
import { newFlowRun } from '../../domain/flow-run/flow-run';
import { stepFlowRun, type FlowStepResult } from '../../domain/flow-run/flow-step';
import { Payment, type CardSummary, type PaymentPrimitives } from '../../domain/payment/payment';
import { isCheckoutExpired } from '../../domain/payment/payment-checkout';
import type { PublishedFlow } from '../../domain/ports/flow-repository';
import type { PaymentVersion } from '../../domain/ports/payment-repositories';
import type { Transaction } from '../../domain/ports/transactor';
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import { authorizeRequest } from './authorize-request';
import { runContext } from './authorization-run';
import { CardRetryBudget } from './card-retry-budget';
import { fraudAnalysisWithSession } from './device-fingerprint';
import type { PaymentDeps } from './payment-deps';
import { paymentEventToOutbox } from './payment-object';
import { RunAdvance } from './run-advance';

export interface ConfirmCheckoutCommand {
  /** The merchant's scope (server confirm), or the payment's own once its client secret was checked (browser). */
  readonly scope: TenantScope;
  readonly paymentId: string;
  /** server: the merchant's POST /v1/payments/{id}/confirm; browser: the public route (client secret). */
  readonly channel: 'server' | 'browser';
  readonly card: {
    readonly token: string;
    readonly brand?: string;
    readonly bin?: string;
    readonly last4?: string;
    readonly expMonth?: number;
    readonly expYear?: number;
    readonly holderName?: string;
  };
  /** Consent to keep the card: an approved token becomes a saved card of the payment's customer. */
  readonly saveCard?: boolean;
  readonly fraudAnalysis?: { readonly fingerprintSessionId: string };
  readonly device?: { readonly userAgent?: string };
  /**
   * The payment as this request already read it (the browser's client secret check), taken over by the confirmation
   * instead of reading it again; tx1 writes it only if the stored payment did not change since (updateIfUnchanged).
   */
  readonly payment?: Payment;
}

/** How many times tx1 runs when changes made meanwhile leave its checks holding (see guardedTx1). */
const TX1_RUNS = 3;

export class ConfirmCheckout {
  private readonly advance: RunAdvance;

  constructor(private readonly deps: PaymentDeps) {
    this.advance = new RunAdvance(deps);
  }

  async execute(command: ConfirmCheckoutCommand): Promise<PaymentPrimitives> {
    const { scope, paymentId } = command;
    const found = isPaymentOf(command.payment, scope, paymentId) ? command.payment : await this.deps.transactor.read((tx) => this.deps.payments.find(tx, scope, paymentId));
    if (!found) throw new NotFoundError('payment', paymentId);
    await this.assertAwaitingCard(scope, found);
    const p = found.view();
    if (command.saveCard && !p.customerId) {
      throw new DomainError('validation_failed', 'saveCard needs a payment created with customerId: the card is saved on that customer.', { param: 'body.saveCard' });
    }
    await this.deps.security?.checkCardPayment({ ...scope, clientIp: p.clientIp, deviceId: p.deviceId });
    const card: CardSummary = {
      brand: command.card.brand ?? null,
      bin: command.card.bin ?? null,
      last4: command.card.last4 ?? null,
      expMonth: command.card.expMonth ?? null,
      expYear: command.card.expYear ?? null,
      holderName: command.card.holderName ?? null,
    };
    const source = { token: command.card.token, isNetworkToken: false, card };
    // The card's brand retry budget, as for a direct payment (create-payment.ts): the counts of every process, read
    // alongside the accounts and flow (batched with the other histories asked in the same turn), asked before each
    // call; each attempt sent is counted. Over budget, the run ends before any call (docs/checkout.md).
    const [accounts, flow, customer, budget] = await Promise.all([
      this.deps.connectors.accounts(scope),
      this.flowOf(scope, p.flowId),
      this.customerOf(scope, p.customerId),
      CardRetryBudget.load({ counts: this.deps.retryCounts, clock: this.deps.clock, scope, card, token: source.token, amount: p.amount }),
    ]);
    // Spec, creation rule 5: debit is charged only after the cardholder authenticates, at a published flow's three_ds node.
    if (p.methodType === 'debit_card' && !flow?.graph.nodes.some((node) => node.type === 'three_ds')) {
      throw new DomainError('checkout_not_configured', 'A debit card payment needs a published flow with a three_ds node (the cardholder authenticates before the debit); publish one, or take the payment as card.');
    }

    // The attempt's first step is taken on the payment as read, so the flow's antifraud and zero_auth nodes ahead of
    // its acquirer call are asked before anything is saved (run-advance.ts); tx1 applies it to a copy of that payment.
    const readAs = found.toPrimitives();
    const flowRun = () => newFlowRun(flow ? { flowId: flow.flowId, name: flow.name, version: flow.version } : null);
    found.confirmCheckoutAttempt({ card, flowRun: flowRun(), now: this.deps.clock.now() });
    found.pullEvents();
    const graph = flow ? flow.graph : directRoutingGraph({ methodType: found.view().methodType }, accounts);
    const context = { ...runContext(found, graph, accounts, this.deps.random ?? Math.random), retryGate: budget };
    const stepContext = { ...context, now: this.deps.clock.now(), newAttemptId: () => this.deps.ids.next('att_') };
    let started: FlowStepResult = stepFlowRun(stepContext, found.view().flowRun!, { kind: 'start' });
    // The server confirm cannot authenticate the cardholder: a three_ds node leaves by its unavailable exit.
    while (command.channel === 'server' && started.action.kind === 'wait' && started.action.wait.kind === 'three_ds_result') {
      started = stepFlowRun(stepContext, started.run, { kind: 'three_ds_result', result: 'unavailable' });
    }
    // The checkout's device fingerprint session goes with the authorization unless the body names its own (rule 6).
    const fraudAnalysis = fraudAnalysisWithSession(command.fraudAnalysis, p.checkout);
    const request = withDevice(authorizeRequest(found.view(), source, { customer, ...(fraudAnalysis ? { fraudAnalysis } : {}) }), command.device);
    const first = await this.advance.nodesAhead({ scope, request, context, step: started });

    // tx1 reads nothing: only queued writes, group-committed with the other units of this turn in one round trip.
    // The payment is written only if nobody changed it since it was read (updateIfUnchanged); else nothing of the
    // unit is kept, and the payment is read again to answer as the checks answer now.
    const taken = await this.guardedTx1(scope, readAs, async (tx, payment, version) => {
      payment.confirmCheckoutAttempt({ card, flowRun: flowRun(), now: this.deps.clock.now() });
      const plan = this.advance.settle(payment, first, 'resume');
      await this.deps.payments.updateIfUnchanged(tx, payment, version);
      await this.advance.save(tx, scope, payment, plan, request);
      const events = payment.pullEvents().map(paymentEventToOutbox);
      if (events.length) await this.deps.outbox.append(tx, events);
      return { payment, plan };
    });

    const { payment, plan } = taken;
    const saveCard = command.saveCard ? (tx: Transaction, approved: Payment) => this.saveCard(tx, approved, source) : undefined;
    const finished = await this.advance.finish({ scope, payment, plan, request, context, card, budget, ...(saveCard ? { alsoRecord: saveCard } : {}) });
    return finished.payment.toPrimitives();
  }

  /**
   * tx1 on a copy of the payment as read. When another request changed it meanwhile, the refusal its checks give now
   * (409 once it no longer awaits a card or another attempt was counted, 410 once its deadline passed); a change
   * that leaves them holding (the same status and attempt count) is not refused: tx1 runs again on the payment as it
   * is now, a few times at most.
   */
  private async guardedTx1<T>(scope: TenantScope, readAs: PaymentPrimitives, work: (tx: Transaction, payment: Payment, readAs: PaymentVersion) => Promise<T>): Promise<T> {
    const meanwhile = () => new DomainError('invalid_state', `Payment ${readAs.id} was confirmed by another request meanwhile; read it and confirm again if it still awaits a card.`);
    let base = readAs;
    for (let run = 1; ; run += 1) {
      try {
        return await this.deps.transactor.run((tx) => work(tx, Payment.fromPrimitives(base), versionOf(base)));
      } catch (error) {
        if (!this.deps.payments.isChangedMeanwhile(error)) throw error;
      }
      const current = await this.deps.transactor.read((tx) => this.deps.payments.find(tx, scope, readAs.id));
      if (!current) throw new NotFoundError('payment', readAs.id);
      const refusal = this.refusalOf(current);
      if (refusal) throw refusal;
      if ((current.view().checkout?.attemptsUsed ?? 0) !== (readAs.checkout?.attemptsUsed ?? 0) || run >= TX1_RUNS) throw meanwhile();
      base = current.toPrimitives();
    }
  }

  /** 404 for another tenant's payment; 409 once it no longer awaits a card; 410 (and canceled) once its deadline passed. */
  private async assertAwaitingCard(scope: TenantScope, payment: Payment): Promise<void> {
    const refusal = this.refusalOf(payment);
    if (!refusal) return;
    if (refusal.code === 'payment_expired' && payment.status === 'requires_payment_method') {
      // Deadline passed but not yet canceled by the expiry job: this request cancels it (payment.canceled).
      await this.deps.transactor.run(async (tx) => {
        const locked = await this.deps.payments.find(tx, scope, payment.id, { forUpdate: true });
        if (!locked || locked.status !== 'requires_payment_method') return;
        locked.expireCheckout(this.deps.clock.now());
        await this.deps.payments.update(tx, locked);
        await this.deps.outbox.append(tx, locked.pullEvents().map(paymentEventToOutbox));
      });
    }
    throw refusal;
  }

  private refusalOf(payment: Payment): DomainError | null {
    const p = payment.view();
    if (!p.checkout) return new DomainError('invalid_state', `Payment ${p.id} was not created for the transparent checkout: it takes no card confirmation.`);
    const expired = (p.status === 'requires_payment_method' && isCheckoutExpired(p.checkout, this.deps.clock.now())) || (p.status === 'canceled' && p.checkout.endedBy === 'expired');
    if (expired) return new DomainError('payment_expired', `The checkout deadline of payment ${p.id} passed at ${p.checkout.expiresAt}; the payment is canceled. Create a new payment.`);
    if (p.status !== 'requires_payment_method') {
      return new DomainError('invalid_state', `Payment ${p.id} no longer awaits a card (status ${p.status}).`);
    }
    return null;
  }

  private async saveCard(tx: Transaction, payment: Payment, source: { token: string; card: CardSummary }): Promise<void> {
    const p = payment.view();
    if ((p.status !== 'authorized' && p.status !== 'captured') || !p.customerId) return;
    const method = SavedPaymentMethod.saveCard({
      id: this.deps.ids.next('pm_'),
      organizationId: p.organizationId,
      environment: p.environment,
      customerId: p.customerId,
      card: source.card,
      token: source.token,
      connectorAccountId: p.connectorAccountId,
      now: this.deps.clock.now(),
    });
    await this.deps.paymentMethods.insert(tx, method);
  }

  /** The flow the payment names, else the environment's active one; null: direct routing. */
  private async flowOf(scope: TenantScope, flowId: string | null): Promise<PublishedFlow | null> {
    if (!this.deps.flows) return null;
    return this.deps.flows.forPayment(scope, flowId);
  }

  private async customerOf(scope: TenantScope, customerId: string | null): Promise<CustomerPrimitives | null> {
    if (!customerId) return null;
    return (await this.deps.transactor.read((tx) => this.deps.customers.find(tx, scope, customerId)))?.toPrimitives() ?? null;
  }
}

/** A payment read earlier in the request is used only for the payment and tenant the command names. */
function isPaymentOf(payment: Payment | undefined, scope: TenantScope, paymentId: string): payment is Payment {
  const p = payment?.view();
  return p !== undefined && p.id === paymentId && p.organizationId === scope.organizationId && p.environment === scope.environment;
}

/** What tx1's checks relied on in the payment as read: its status, its checkout attempt count, its version. */
function versionOf(p: PaymentPrimitives): PaymentVersion {
  return { status: p.status, updatedAt: p.updatedAt, checkoutAttemptsUsed: p.checkout?.attemptsUsed ?? 0 };
}

/** The buyer's browser, as the confirmation describes it, for the acquirer's antifraud data. */
function withDevice<R extends { fraudData?: object }>(request: R, device: ConfirmCheckoutCommand['device']): R {
  if (!device?.userAgent) return request;
  return { ...request, fraudData: { ...request.fraudData, clientUserAgent: device.userAgent } };
}
