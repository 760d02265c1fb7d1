/**
 * Creation of a transparent checkout payment (spec, creation rules 3-5): a card or debit card payment without card
 * and paymentMethodId. Nothing is sent to an acquirer: the payment is saved in requires_payment_method with a
 * client secret for the buyer's browser and a 24-hour deadline, bound to the one account that tokenizes the card
 * in the browser (tokenizationAccountId, or the environment's single enabled account that can).
 */
import { Payment, type SplitEntry } from '../../domain/payment/payment';
import { paymentMethod } from '../../domain/payment/methods';
import type { PaymentConnectorAccount } from '../../domain/ports/payment-connectors';
import { DomainError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { CreateCardPaymentCommand } from './create-payment';
import { openFingerprintSession } from './device-fingerprint';
import type { PaymentDeps } from './payment-deps';
import { merchantFieldsOf } from './merchant-fields';
import { merchantPaymentObject, type PaymentObject } from './payment-object';

/** The capability an account needs to tokenize a card in the buyer's browser. */
export const BROWSER_TOKENIZATION = 'browser_tokenization';

export class OpenCheckout {
  constructor(private readonly deps: PaymentDeps) {}

  async execute(command: CreateCardPaymentCommand, splits: SplitEntry[]): Promise<PaymentObject> {
    const secrets = this.deps.checkoutSecrets;
    if (!secrets) throw new DomainError('checkout_not_available', 'The transparent checkout is not enabled in this installation; send card.token or paymentMethodId.', { param: 'body.card' });
    const { scope } = command;
    const methodType = command.methodType === 'debit_card' ? 'debit_card' : 'card';
    const customer = await this.customerOf(scope, command.customerId);
    paymentMethod(methodType).start({
      methodType,
      hasCard: false,
      hasPaymentMethodId: false,
      captureMethod: command.captureMethod ?? 'automatic',
      installments: command.installments ?? 1,
      initiator: command.initiator ?? 'customer',
      customer: customer ? { name: customer.name, document: customer.document, address: null } : null,
      hasPixOptions: command.pix !== undefined,
      hasBoletoOptions: command.boleto !== undefined,
    });
    if (splits.length > 0) await this.assertRecipientsExist(scope, splits);
    const [accounts, flow] = await Promise.all([this.deps.connectors.accounts(scope), this.publishedFlow(scope, command.flowId)]);
    if (methodType === 'debit_card' && !flow?.graph.nodes.some((node) => node.type === 'three_ds')) {
      throw new DomainError('validation_failed', 'A debit card payment needs a published flow with a three_ds node: debit is charged only after the cardholder authenticates.', { param: 'body.methodType' });
    }
    const tokenizer = tokenizingAccount(accounts, command.tokenizationAccountId);
    const id = this.deps.ids.next('pay_');
    const secret = secrets.issue(id);
    const payment = Payment.openCheckout({
      id,
      organizationId: scope.organizationId,
      environment: scope.environment,
      amount: command.amount,
      currency: command.currency,
      methodType,
      captureMethod: command.captureMethod,
      customerId: command.customerId ?? null,
      installments: command.installments,
      initiator: command.initiator,
      mitType: command.mitType ?? null,
      softDescriptor: command.softDescriptor ?? null,
      ...merchantFieldsOf(command),
      // Only a flow the merchant named is kept: otherwise each attempt runs the environment's active flow of its time.
      flowId: command.flowId ?? null,
      splits,
      clientSecret: { sealed: secret.sealed, sha256: secret.sha256 },
      tokenizationAccountId: tokenizer.id,
      // The tokenizing account is the one that charges the card: its antifraud analysis asks for a device session.
      fingerprintSession: openFingerprintSession({ methodType, initiator: command.initiator }, tokenizer, () => this.deps.ids.next('fps_')),
      now: this.deps.clock.now(),
    });
    await this.deps.transactor.run(async (tx) => {
      await this.deps.payments.insert(tx, payment);
      if (command.idempotencyKey) await this.deps.payments.bindIdempotencyKey(tx, scope, command.idempotencyKey, payment.id, this.deps.clock.now());
      if (scope.environment === 'live') await this.deps.usage.countLivePayment(tx, scope.organizationId, payment.id, this.deps.clock.now());
    });
    return merchantPaymentObject(payment.toPrimitives(), () => secret.secret);
  }

  private async customerOf(scope: TenantScope, customerId: string | undefined) {
    if (!customerId) return null;
    const found = await this.deps.transactor.read((tx) => this.deps.customers.find(tx, scope, customerId));
    if (!found) throw new DomainError('resource_missing', `No such customer: ${customerId}`, { param: 'body.customerId' });
    return found.toPrimitives();
  }

  private async publishedFlow(scope: TenantScope, flowId: string | undefined) {
    if (!this.deps.flows) {
      if (flowId) throw new DomainError('validation_failed', 'Flows are not available in this installation.', { param: 'body.flowId' });
      return null;
    }
    const flow = await this.deps.flows.forPayment(scope, flowId ?? null);
    if (flowId && !flow) throw new DomainError('validation_failed', `Flow ${flowId} is not a published flow of this environment.`, { param: 'body.flowId' });
    return flow;
  }

  private async assertRecipientsExist(scope: TenantScope, splits: readonly SplitEntry[]): Promise<void> {
    const existing = await this.deps.transactor.read((tx) => this.deps.recipients.existingIds(tx, scope, splits.map((s) => s.recipientId)));
    const index = splits.findIndex((s) => !existing.has(s.recipientId));
    if (index >= 0) throw new DomainError('resource_missing', `No such recipient: ${splits[index]!.recipientId}`, { param: `body.splits[${index}].recipientId` });
  }
}

/**
 * Creation rule 3: the named account, which must tokenize in the browser; without a name, the single enabled account
 * that does. None or several: 422, the merchant must say which (or fix its accounts).
 */
export function tokenizingAccount(accounts: readonly PaymentConnectorAccount[], requestedId: string | undefined): PaymentConnectorAccount {
  const tokenizers = accounts.filter((a) => a.enabled && a.capabilities.includes(BROWSER_TOKENIZATION));
  if (requestedId !== undefined) {
    const chosen = tokenizers.find((a) => a.id === requestedId);
    if (!chosen) {
      throw new DomainError('validation_failed', `tokenizationAccountId ${requestedId} is not an enabled connector account of this environment that tokenizes cards in the browser (browser_tokenization).`, { param: 'body.tokenizationAccountId' });
    }
    return chosen;
  }
  if (tokenizers.length !== 1) {
    const found = tokenizers.length === 0 ? 'none does' : `${tokenizers.length} do (${tokenizers.map((a) => a.id).join(', ')})`;
    throw new DomainError('validation_failed', `A transparent checkout needs exactly one enabled connector account that tokenizes cards in the browser (browser_tokenization); ${found}. Name one in tokenizationAccountId.`, { param: 'body.tokenizationAccountId' });
  }
  return tokenizers[0]!;
}
