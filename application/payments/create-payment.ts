import type { CustomerPrimitives } from '../../domain/customer/customer';
import { Payment, type CaptureMethod, type CardSummary, type Currency, type Initiator, type MethodType, type MitType, type SplitEntry } from '../../domain/payment/payment';
import { paymentMethod, type MethodCustomer } from '../../domain/payment/methods';
import { directRoutingGraph } from '../../domain/flow-run/direct-graph';
import { newFlowRun } from '../../domain/flow-run/flow-run';
import { stepFlowRun } from '../../domain/flow-run/flow-step';
import type { PublishedFlow } from '../../domain/ports/flow-repository';
import type { FlowGraph, FlowTriggerEvent } from '../../domain/flow/flow-graph';
import { splitNodeRecipientIds } from '../../domain/flow/split-node-data';
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import { IDEMPOTENCY_TTL_MS } from '../../domain/shared/idempotency';
import { canonicalIpAddress } from '../../domain/shared/ip-address';
import type { TenantScope } from '../../domain/shared/environment';
import type { Transaction } from '../../domain/ports/transactor';
import type { PaymentDeps } from './payment-deps';
import { merchantFieldsOf, type MerchantFields } from './merchant-fields';
import { authorizeRequest, type FraudAnalysisInput } from './authorize-request';
import { runContext } from './authorization-run';
import { RunAdvance } from './run-advance';
import { CardRetryBudget } from './card-retry-budget';
import { merchantPaymentObject, paymentEventToOutbox, revealWith, type PaymentObject } from './payment-object';
import { CreateBankChargePayment } from './create-bank-charge-payment';
import { OpenCheckout } from './open-checkout';
import { splitShares } from '../../domain/payment/split-shares';

export interface CreateCardPaymentCommand extends MerchantFields {
  readonly scope: TenantScope;
  readonly amount: number;
  readonly currency?: Currency;
  readonly methodType?: MethodType;
  /** Pix options (methodType pix). */
  readonly pix?: { readonly expiresInSeconds?: number };
  /** Boleto options (methodType boleto). */
  readonly boleto?: Readonly<Record<string, unknown>>;
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
  /**
   * The trigger the payment is started under (docs/flows.md): payments of invoices, subscription renewals and retries
   * run the environment's active flow of their trigger (or direct routing); payment.authorization_requested otherwise.
   */
  readonly triggerEvent?: Exclude<FlowTriggerEvent, 'manual'>;
  /** Transparent checkout: the account that tokenizes the card in the browser and charges it (creation rule 3). */
  readonly tokenizationAccountId?: string;
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
 * Creates and processes a card payment with a vault token or a saved card. The payment runs the published flow
 * named in flowId or active in the environment (docs/flows.md), else direct routing's built-in graph: the run's
 * first step is taken before anything is saved; tx1 saves the payment in processing with its run and the first
 * call's attempt id (and counts live usage); the executor (authorization-run.ts) then makes each call outside any
 * transaction, with the attempt id as idempotency key and the gateway's deadline, feeding each answer back to the
 * run (technical failures fall back, an issuer answer ends routing); tx2 records the attempts, the run, the outcome
 * and its events.
 */
export class CreatePayment {
  private readonly advance: RunAdvance;
  private readonly bankCharges: CreateBankChargePayment;
  private readonly checkout: OpenCheckout;

  constructor(private readonly deps: PaymentDeps) {
    this.advance = new RunAdvance(deps);
    this.bankCharges = new CreateBankChargePayment(deps);
    this.checkout = new OpenCheckout(deps);
  }

  async execute(input: CreateCardPaymentCommand): Promise<PaymentObject> {
    // The payer's address enters here: from now on it is its canonical form, the one stored, sent and compared.
    const command: CreateCardPaymentCommand = { ...input, clientIp: canonicalClientIp(input.clientIp) };
    const { scope } = command;
    // The edge lets a repetition take over a key whose process died (its lock ran out); if that process had created
    // the payment, it is answered as it is now (recovery finishes its routing), never created and charged again.
    const earlier = command.idempotencyKey ? await this.paymentOfKey(scope, command.idempotencyKey) : null;
    if (earlier) return merchantPaymentObject(earlier.toPrimitives(), revealWith(this.deps.checkoutSecrets));
    // Pix and boleto: a charge issued at the bank for the payer (create-bank-charge-payment.ts).
    if (command.methodType === 'pix' || command.methodType === 'boleto') {
      const { card, paymentMethodId, currency, ...rest } = command;
      return this.bankCharges.execute(
        { ...rest, methodType: command.methodType, hasCard: card !== undefined, hasPaymentMethodId: paymentMethodId !== undefined, ...(currency ? { currency } : {}) },
        await this.publishedFlow(command),
      );
    }
    // The shares' own rules first (pure); whether their recipients exist is read with the charge source.
    const splits = splitShares(command.amount, command.splits, command.splitRemainderRecipientId);
    // Without a card the buyer's browser brings one: the transparent checkout (open-checkout.ts).
    if (isCheckoutRequest(command)) return this.checkout.execute(command, splits);
    const source = await this.resolveSource(command, splits);
    await this.deps.security?.checkCardPayment({ ...scope, clientIp: command.clientIp ?? null, deviceId: command.deviceId ?? null });
    const [allAccounts, flow] = await Promise.all([this.deps.connectors.accounts(scope), this.publishedFlow(command)]);
    // A pinned account must be one of this environment's (spec, Errors: 404 for another environment's account). A
    // saved card's account that was removed since is not the merchant's request: routing reports it as unavailable.
    if (command.card?.connectorAccountId && !allAccounts.some((account) => account.id === command.card!.connectorAccountId)) {
      throw new NotFoundError('connector account', command.card.connectorAccountId);
    }
    const graph = flow ? flow.graph : directRoutingGraph({ methodType: 'card' }, allAccounts);
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
      ...merchantFieldsOf(command),
      splits,
      pinnedConnectorAccountId: source.pinnedAccountId,
      flowRun: newFlowRun(flow ? { flowId: flow.flowId, name: flow.name, version: flow.version } : null),
      now: this.deps.clock.now(),
    });

    // The run's first step, before anything is saved: the first call (its attempt id saved with the payment in tx1,
    // for crash recovery), or already the end (the flow declined, no account can take the payment).
    // The card's brand retry budget (counts of every process): asked before each call, counting each attempt sent.
    const budget = await CardRetryBudget.load({ counts: this.deps.retryCounts, clock: this.deps.clock, scope, card: source.card, token: source.token, amount: command.amount });
    const recipientIds = splits.length === 0 ? await this.splitNodeRecipients(scope, graph) : undefined;
    const context = { ...runContext(payment, graph, allAccounts, this.deps.random ?? Math.random), retryGate: budget, ...(recipientIds ? { recipientIds } : {}) };
    const asked = authorizeRequest(payment.view(), source, { items: command.items, customer: source.customer, fraudAnalysis: command.fraudAnalysis });
    const started = stepFlowRun({ ...context, now: this.deps.clock.now(), newAttemptId: () => this.deps.ids.next('att_') }, payment.view().flowRun!, { kind: 'start' });
    // The flow's antifraud and zero_auth nodes before its first acquirer call are asked now, before anything is saved.
    const first = await this.advance.nodesAhead({ scope, request: asked, context, step: started });
    const plan = this.advance.settle(payment, first, 'create');
    // A split node on the way took its shares (settle recorded the run on the payment): the authorization carries them.
    const request = payment.view().splits.length === splits.length ? asked : authorizeRequest(payment.view(), source, { items: command.items, customer: source.customer, fraudAnalysis: command.fraudAnalysis });
    await this.deps.transactor.run(async (tx) => {
      await this.deps.payments.insert(tx, payment);
      if (command.idempotencyKey) await this.deps.payments.bindIdempotencyKey(tx, scope, command.idempotencyKey, payment.id, this.deps.clock.now());
      await this.advance.save(tx, scope, payment, plan, request);
      if (scope.environment === 'live') await this.deps.usage.countLivePayment(tx, scope.organizationId, payment.id, this.deps.clock.now());
      const events = payment.pullEvents().map(paymentEventToOutbox);
      if (events.length) await this.deps.outbox.append(tx, events);
    });
    // A payment that now awaits the buyer (a 3DS step) is answered with its client secret.
    if (!plan.call) return merchantPaymentObject(payment.toPrimitives(), revealWith(this.deps.checkoutSecrets));

    const finished = await this.advance.finish({ scope, payment, plan, request, context, card: source.card, budget });
    const final = finished.payment.toPrimitives();
    if (finished.recorded) await this.afterOutcome(scope, final, source, command);
    return merchantPaymentObject(final, revealWith(this.deps.checkoutSecrets));
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
    const flow = await this.deps.flows.forPayment(command.scope, command.flowId ?? null, command.triggerEvent ?? 'payment.authorization_requested');
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
      this.assertMethodProcessed(command, customer);
      if (command.paymentMethodId) {
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
      const c = command.card!;
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
   * The payment's method decides what the request must hold and how the payment starts (domain/payment/methods).
   * This installation sends for authorization at once only what the merchant's card or saved card pays.
   */
  private assertMethodProcessed(command: CreateCardPaymentCommand, customer: CustomerPrimitives | null): void {
    const methodType = command.methodType ?? 'card';
    const start = paymentMethod(methodType).start({
      methodType,
      hasCard: command.card !== undefined,
      hasPaymentMethodId: command.paymentMethodId !== undefined,
      captureMethod: command.captureMethod ?? 'automatic',
      installments: command.installments ?? 1,
      initiator: command.initiator ?? 'customer',
      customer: customer ? methodCustomerOf(customer) : null,
      hasPixOptions: command.pix !== undefined,
      hasBoletoOptions: command.boleto !== undefined,
    });
    // 'checkout' never reaches here: execute hands those requests to OpenCheckout first.
    // 'issue_charge' (pix, boleto) never reaches here either: execute hands those to CreateBankChargePayment.
  }

  /** The recipients the flow's split nodes name that exist now (checked again at run time: one may have been deleted). */
  private async splitNodeRecipients(scope: TenantScope, graph: FlowGraph): Promise<ReadonlySet<string> | undefined> {
    const named = graph.nodes.flatMap((node) => (node.type === 'split' ? splitNodeRecipientIds(node.data) : []));
    if (named.length === 0) return undefined;
    return this.deps.transactor.read((tx) => this.deps.recipients.existingIds(tx, scope, named));
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
}

/** A card or debit card payment with neither card nor paymentMethodId (spec, creation rules 3 and 5). */
function isCheckoutRequest(command: CreateCardPaymentCommand): boolean {
  const methodType = command.methodType ?? 'card';
  return (methodType === 'card' || methodType === 'debit_card') && command.card === undefined && command.paymentMethodId === undefined;
}

function methodCustomerOf(customer: CustomerPrimitives): MethodCustomer {
  const address = customer.address ?? customer.billingAddress;
  return { name: customer.name, document: customer.document, address: address ?? null };
}
