import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from './payment-deps';
import { runMoneyOperation } from './money-operation';
import { voidPlan } from './money-operation-plans';
import type { PaymentObject } from './payment-object';
import { BankChargeOperations } from './bank-charge-operations';

/**
 * Voids an authorized, uncaptured card payment on the connector that authorized it: emits payment.voided. A Pix or
 * boleto charge awaiting payment is removed at the bank after asking it (bank-charge-operations.ts).
 */
export class VoidPayment {
  constructor(
    private readonly deps: PaymentDeps,
    private readonly bankCharges?: BankChargeOperations,
  ) {}

  async execute(input: { scope: TenantScope; paymentId: string; reason?: string; idempotencyKey?: string }): Promise<PaymentObject> {
    if (this.bankCharges) {
      const payment = await this.deps.transactor.read((tx) => this.deps.payments.find(tx, input.scope, input.paymentId));
      if (payment && BankChargeOperations.isOpenBankCharge(payment)) {
        return this.bankCharges.void({ scope: input.scope, paymentId: input.paymentId, ...(input.reason === undefined ? {} : { reason: input.reason }) });
      }
    }
    const request = input.reason === undefined ? {} : { reason: input.reason };
    return runMoneyOperation(this.deps, input.scope, input.paymentId, voidPlan(request), input.idempotencyKey);
  }
}
