/**
 * Creates a Pix or boleto payment (spec, creation rule 2). The payer is checked by the method (a customer with a name
 * and a valid CPF/CNPJ; boleto also a full address), then the payment runs its flow like a card: tx1 saves it
 * processing with the run and the first call's attempt id (crash recovery re-sends the same key); the executor issues
 * the charge at the account the run chose (create_pix_charge / create_boleto); tx2 records it requires_action with the
 * charge as nextAction, and parks the run's bank_notice wait, due at its first poll (bank-charge-polling.ts).
 */
import type { CustomerPrimitives } from '../../domain/customer/customer';
import { directRoutingGraph } from '../../domain/flow-run/direct-graph';
import { newFlowRun } from '../../domain/flow-run/flow-run';
import { stepFlowRun } from '../../domain/flow-run/flow-step';
import { paymentMethod } from '../../domain/payment/methods';
import { Payment, type MethodType } from '../../domain/payment/payment';
import type { PublishedFlow } from '../../domain/ports/flow-repository';
import type { AuthorizeRequest, BankChargeOptions } from '../../domain/ports/payment-recovery';
import { DomainError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import { authorizeRequest } from './authorize-request';
import { runContext } from './authorization-run';
import type { PaymentDeps } from './payment-deps';
import { merchantPaymentObject, paymentEventToOutbox, revealWith, type PaymentObject } from './payment-object';
import { RunAdvance } from './run-advance';
import { merchantFieldsOf, type MerchantFields } from './merchant-fields';

/** Spec, Limits: a Pix charge lives 60 to 604800 seconds, 3600 unless the merchant says. */
export const PIX_DEFAULT_EXPIRES_IN_SECONDS = 3600;
/** A boleto without dueDate is due this many days after its creation (docs/pix-boleto.md). */
export const BOLETO_DEFAULT_DUE_DAYS = 3;

export interface CreateBankChargePaymentCommand extends MerchantFields {
  readonly scope: TenantScope;
  readonly amount: number;
  readonly currency?: 'BRL' | string;
  readonly methodType: Extract<MethodType, 'pix' | 'boleto'>;
  readonly pix?: { readonly expiresInSeconds?: number };
  readonly boleto?: Readonly<Record<string, unknown>>;
  readonly customerId?: string;
  readonly splits?: readonly unknown[];
  readonly idempotencyKey?: string;
  readonly flowId?: string;
  /** What the method's rules look at besides the customer (a card sent with a Pix is refused). */
  readonly hasCard: boolean;
  readonly hasPaymentMethodId: boolean;
  readonly captureMethod?: 'automatic' | 'manual';
  readonly installments?: number;
  readonly initiator?: 'customer' | 'merchant';
}

export class CreateBankChargePayment {
  private readonly advance: RunAdvance;

  constructor(private readonly deps: PaymentDeps) {
    this.advance = new RunAdvance(deps);
  }

  async execute(command: CreateBankChargePaymentCommand, flow: PublishedFlow | null): Promise<PaymentObject> {
    const { scope, methodType } = command;
    if (command.currency !== undefined && command.currency !== 'BRL') {
      throw new DomainError('validation_failed', `A ${methodType} payment is in BRL.`, { param: 'body.currency' });
    }
    if (command.splits?.length) {
      throw new DomainError('validation_failed', `Splits are not available for ${methodType} payments in this version.`, { param: 'body.splits' });
    }
    const customer = await this.customerOf(command);
    paymentMethod(methodType).start({
      methodType,
      hasCard: command.hasCard,
      hasPaymentMethodId: command.hasPaymentMethodId,
      captureMethod: command.captureMethod ?? 'automatic',
      installments: command.installments ?? 1,
      initiator: command.initiator ?? 'customer',
      customer: customer ? { name: customer.name, document: customer.document, address: customer.address ?? customer.billingAddress ?? null } : null,
      hasPixOptions: command.pix !== undefined,
      hasBoletoOptions: command.boleto !== undefined,
    });
    const now = this.deps.clock.now();
    const options = chargeOptions(command, now);
    const allAccounts = await this.deps.connectors.accounts(scope);
    const graph = flow ? flow.graph : directRoutingGraph({ methodType }, allAccounts);
    const payment = Payment.createCard({
      id: this.deps.ids.next('pay_'),
      organizationId: scope.organizationId,
      environment: scope.environment,
      amount: command.amount,
      currency: 'BRL',
      methodType,
      customerId: customer!.id,
      card: null,
      ...merchantFieldsOf(command),
      flowRun: newFlowRun(flow ? { flowId: flow.flowId, name: flow.name, version: flow.version } : null),
      now,
    });

    const context = runContext(payment, graph, allAccounts, this.deps.random ?? Math.random);
    const started = stepFlowRun({ ...context, now, newAttemptId: () => this.deps.ids.next('att_') }, payment.view().flowRun!, { kind: 'start' });
    // The request as a card's, with the payer, without a card (there is none): the charge's options instead.
    const { source: _noCard, ...base } = authorizeRequest(payment.view(), { token: '', isNetworkToken: false, card: emptyCard() }, { customer });
    const request: AuthorizeRequest = { ...base, bankCharge: options };
    // An antifraud (or zero_auth) node before the charge is issued is asked now, as for a card (run-advance.ts).
    const first = await this.advance.nodesAhead({ scope, request, context, step: started });
    const plan = this.advance.settle(payment, first, 'create');
    await this.deps.transactor.run(async (tx) => {
      await this.deps.payments.insert(tx, payment);
      if (command.idempotencyKey) await this.deps.payments.bindIdempotencyKey(tx, scope, command.idempotencyKey, payment.id, now);
      await this.advance.save(tx, scope, payment, plan, request);
      if (scope.environment === 'live') await this.deps.usage.countLivePayment(tx, scope.organizationId, payment.id, now);
      const events = payment.pullEvents().map(paymentEventToOutbox);
      if (events.length) await this.deps.outbox.append(tx, events);
    });
    const finished = await this.advance.finish({ scope, payment, plan, request, context, card: null });
    // requires_action with the charge: the merchant hands the client secret to the payer's page (public view).
    return merchantPaymentObject(finished.payment.toPrimitives(), revealWith(this.deps.checkoutSecrets));
  }

  private async customerOf(command: CreateBankChargePaymentCommand): Promise<CustomerPrimitives | null> {
    if (!command.customerId) return null;
    const found = await this.deps.transactor.read((tx) => this.deps.customers.find(tx, command.scope, command.customerId!));
    if (!found) throw new DomainError('resource_missing', `No such customer: ${command.customerId}`, { param: 'body.customerId' });
    return found.toPrimitives();
  }
}

/** The body's pix / boleto options with the spec's defaults; a boleto due in the past is refused. */
export function chargeOptions(command: Pick<CreateBankChargePaymentCommand, 'methodType' | 'pix' | 'boleto'>, now: Date): BankChargeOptions {
  if (command.methodType === 'pix') return { methodType: 'pix', expiresInSeconds: command.pix?.expiresInSeconds ?? PIX_DEFAULT_EXPIRES_IN_SECONDS };
  const b = command.boleto ?? {};
  const today = now.toISOString().slice(0, 10);
  const dueDate = typeof b.dueDate === 'string' ? b.dueDate : new Date(now.getTime() + BOLETO_DEFAULT_DUE_DAYS * 86_400_000).toISOString().slice(0, 10);
  if (dueDate < today) throw new DomainError('validation_failed', `boleto.dueDate ${dueDate} is in the past; give today (${today}) or a later date.`, { param: 'body.boleto.dueDate' });
  return {
    methodType: 'boleto',
    dueDate,
    daysAfterDue: typeof b.daysAfterDue === 'number' ? b.daysAfterDue : 0,
    fineBps: typeof b.fineBps === 'number' ? b.fineBps : 0,
    interestMonthlyBps: typeof b.interestMonthlyBps === 'number' ? b.interestMonthlyBps : 0,
    ...(typeof b.instructions === 'string' && b.instructions ? { instructions: b.instructions } : {}),
  };
}

function emptyCard() {
  return { brand: null, bin: null, last4: null, expMonth: null, expYear: null, holderName: null };
}
