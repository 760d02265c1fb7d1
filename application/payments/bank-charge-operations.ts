/**
 * The merchant's operations on an open Pix or boleto charge. Void asks the bank first: a charge already paid cannot
 * be taken back by removing it, so the payment is captured and the void refused (409); otherwise the charge is removed
 * at the bank (Pix removed, boleto written off) and only then the payment canceled. Simulate (sandbox only) plays the
 * bank for tests: it pays or lets lapse a charge the sandbox issued, and the service learns of it as from any bank, by
 * asking (CheckBankCharges).
 */
import type { Payment } from '../../domain/payment/payment';
import type { ChargeStatusOutput, SandboxChargeSimulator } from '../../domain/ports/acquirer-gateway';
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { CheckBankCharges } from './check-bank-charges';
import type { PaymentDeps } from './payment-deps';
import { paymentEventToOutbox, paymentObject, type PaymentObject } from './payment-object';

/** The slug of the service's own sandbox acquirer, the only one simulate drives. */
export const SANDBOX_CONNECTOR_SLUG = 'sandbox';

export class BankChargeOperations {
  constructor(
    private readonly deps: PaymentDeps,
    private readonly checks: CheckBankCharges,
    private readonly simulator: (connectorSlug: string) => SandboxChargeSimulator,
  ) {}

  /** Whether a void of this payment is the bank charge's (this use case) rather than a card's. */
  static isOpenBankCharge(payment: Payment): boolean {
    const p = payment.view();
    return (p.methodType === 'pix' || p.methodType === 'boleto') && p.status === 'requires_action' && !!p.bankCharge;
  }

  async void(input: { scope: TenantScope; paymentId: string; reason?: string }): Promise<PaymentObject> {
    const { scope, paymentId } = input;
    const payment = await this.read(scope, paymentId);
    if (!BankChargeOperations.isOpenBankCharge(payment)) throw new DomainError('invalid_state', `Payment ${paymentId} has no charge awaiting payment to void.`);
    const { gateway, credentials, acquirerPaymentId } = await this.open(scope, payment);
    const found = await gateway.queryCharge({ credentials, acquirerPaymentId });
    if (found.status === 'paid') return this.paidMeanwhile(scope, paymentId);
    const removed: ChargeStatusOutput = await gateway.cancelCharge({ credentials, idempotencyKey: `${paymentId}:void`, acquirerPaymentId });
    if (removed.status === 'paid') return this.paidMeanwhile(scope, paymentId);
    return this.deps.transactor.run(async (tx) => {
      const current = await this.deps.payments.find(tx, scope, paymentId, { forUpdate: true });
      if (!current) throw new NotFoundError('payment', paymentId);
      // A notice checked meanwhile may have captured it: the void no longer applies (invalid_state, 409).
      current.void({ operationId: this.deps.ids.next('op_'), reason: input.reason ?? null, now: this.deps.clock.now(), acquirerReference: acquirerPaymentId });
      await this.deps.waits?.release(tx, paymentId);
      await this.deps.payments.update(tx, current);
      await this.deps.outbox.append(tx, current.pullEvents().map(paymentEventToOutbox));
      return paymentObject(current.toPrimitives());
    });
  }

  async simulate(input: { scope: TenantScope; paymentId: string; outcome: 'paid' | 'expired' }): Promise<PaymentObject> {
    const { scope, paymentId } = input;
    const payment = await this.read(scope, paymentId);
    const p = payment.view();
    if (p.methodType !== 'pix' && p.methodType !== 'boleto') {
      throw new DomainError('unsupported_payment_method', `Simulate applies to Pix and boleto payments; payment ${paymentId} is ${p.methodType}.`, { param: 'path.id' });
    }
    if (p.status !== 'requires_action' || !p.bankCharge) throw new DomainError('invalid_state', `Payment ${paymentId} is ${p.status}, not awaiting payment.`);
    if (p.connectorSlug !== SANDBOX_CONNECTOR_SLUG) {
      throw new DomainError('validation_failed', `Payment ${paymentId}'s charge was issued by ${p.connectorSlug}, not the sandbox connector; only the sandbox's charges can be simulated.`, { param: 'path.id' });
    }
    const { credentials, acquirerPaymentId } = await this.open(scope, payment);
    const result = await this.simulator(SANDBOX_CONNECTOR_SLUG).simulateCharge({ credentials, acquirerPaymentId, outcome: input.outcome });
    if (!result.applied && result.charge.status !== (input.outcome === 'paid' ? 'paid' : 'expired')) {
      throw new DomainError('invalid_state', `The charge of payment ${paymentId} is ${result.charge.status} at the bank, not awaiting payment.`);
    }
    await this.checks.check(scope, paymentId);
    return paymentObject((await this.read(scope, paymentId)).toPrimitives());
  }

  /** The payer paid before the charge could be removed: the payment is captured, and the void refused. */
  private async paidMeanwhile(scope: TenantScope, paymentId: string): Promise<never> {
    await this.checks.check(scope, paymentId);
    throw new DomainError('invalid_state', `The payer has just paid payment ${paymentId}: it is captured and can no longer be voided (refund it instead).`);
  }

  private async open(scope: TenantScope, payment: Payment) {
    const p = payment.view();
    const opened = p.connectorAccountId ? await this.deps.connectors.open(scope, p.connectorAccountId) : null;
    if (!opened || !p.acquirer.acquirerPaymentId) {
      throw new DomainError('connector_unavailable', `The connector account that issued payment ${p.id}'s charge is not available; try again later.`);
    }
    return { ...opened, acquirerPaymentId: p.acquirer.acquirerPaymentId };
  }

  private async read(scope: TenantScope, paymentId: string): Promise<Payment> {
    const payment = await this.deps.transactor.read((tx) => this.deps.payments.find(tx, scope, paymentId));
    if (!payment) throw new NotFoundError('payment', paymentId);
    return payment;
  }
}
