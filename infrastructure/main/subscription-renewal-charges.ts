import type { CreatePayment } from '../../application/payments/create-payment';
import type { RenewalCharge, RenewalCharges } from '../../application/subscriptions/subscription-deps';
import type { PaymentPrimitives } from '../../domain/payment/payment';
import type { Transactor } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';
import { SqlPaymentRepository } from '../persistence/payment.repository';

/**
 * Renewals charged through the payments capability: a merchant-initiated recurring payment of the subscription's
 * saved card (contract.md 4) under the renewal's trigger event, bound to the renewal's idempotency key (CreatePayment
 * answers a key it already saw with that payment). The outcome is read from the stored payment, whose routing stop
 * reason (e.g. a brand retry budget) the public object does not carry.
 */
export class PaymentRenewalCharges implements RenewalCharges {
  private readonly payments = new SqlPaymentRepository();

  constructor(
    private readonly transactor: Transactor,
    private readonly triggeredPayments: CreatePayment,
  ) {}

  async charge(input: Parameters<RenewalCharges['charge']>[0]): Promise<RenewalCharge> {
    const created = await this.triggeredPayments.execute({
      scope: input.scope,
      amount: input.amount,
      currency: input.currency as never,
      customerId: input.customerId,
      paymentMethodId: input.paymentMethodId,
      initiator: 'merchant',
      mitType: 'recurring',
      triggerEvent: input.triggerEvent,
      idempotencyKey: input.idempotencyKey,
      ...(input.description !== null ? { description: input.description } : {}),
      metadata: input.metadata,
    });
    const found = await this.find(input.scope, created.id);
    if (!found) throw new Error(`renewal payment ${created.id} not found after its creation`);
    return found;
  }

  async find(scope: TenantScope, paymentId: string): Promise<RenewalCharge | null> {
    const payment = await this.transactor.read((tx) => this.payments.find(tx, scope, paymentId));
    return payment ? renewalCharge(payment.toPrimitives()) : null;
  }
}

function renewalCharge(p: PaymentPrimitives): RenewalCharge {
  const outcome = p.status === 'captured' || p.status === 'authorized' ? 'succeeded' : p.status === 'failed' || p.status === 'canceled' ? 'failed' : 'pending';
  return {
    paymentId: p.id,
    outcome,
    decline: p.decline ? { reason: p.decline.reason, reversibility: p.decline.reversibility, retryAction: p.decline.retryAction } : null,
    stopReason: p.routingStopReason ?? null,
  };
}
