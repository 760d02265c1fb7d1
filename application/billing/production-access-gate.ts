import { TRIAL_PAYMENTS } from '../../domain/billing/free-trial';
import { productionAccess, type ProductionAccess } from '../../domain/billing/production-access';
import type { ProductionUsage } from '../../domain/ports/payment-repositories';
import type { PlatformBillingRepository } from '../../domain/ports/platform-billing';
import type { Transaction } from '../../domain/ports/transactor';
import { DomainError } from '../../domain/shared/domain-error';

/**
 * Counts each live payment inside its creation's first transaction and refuses it when neither the free trial nor a
 * paid plan allows production. The refusal rolls tx1 back, so nothing was saved and nothing goes to an acquirer.
 * One payment is one count, whatever its attempts: only creation calls it, once per payment id.
 */
export class ProductionAccessGate implements ProductionUsage {
  constructor(private readonly billing: PlatformBillingRepository) {}

  async countLivePayment(tx: Transaction, organizationId: string, paymentId: string, at: Date): Promise<void> {
    const companyId = (await this.billing.companyOf(tx, organizationId)) ?? organizationId;
    const firstTime = await this.billing.recordLivePayment(tx, organizationId, paymentId, at);
    if (firstTime) {
      const subscription = await this.billing.subscription(tx, companyId);
      const access = productionAccess(await this.billing.allowance(tx, companyId), subscription, at);
      if (!access.allowed) throw refusal(access, subscription !== null);
      // The trial's count is taken with a conditional update: of payments 50 and 51 arriving together, one gets it.
      if (access.through === 'trial' && !(await this.billing.takeTrialPayment(tx, companyId, TRIAL_PAYMENTS))) {
        throw refusal({ ...access, trial: { ...access.trial, status: 'ended', endedBy: 'payments', paymentsRemaining: 0 } }, false);
      }
    }
  }
}

function refusal(access: ProductionAccess, awaitingSettlement: boolean): DomainError {
  if (awaitingSettlement) {
    return new DomainError('production_access_required', 'Live payments open once the annual plan\'s prepaid invoice is settled.', { param: null });
  }
  const why =
    access.trial.status === 'not_eligible'
      ? 'this company already had its free trial'
      : access.trial.endedBy === 'payments'
        ? 'the free trial ended after its 50 production payments'
        : 'the free trial ended after its 30 days';
  return new DomainError('production_access_required', `Live payments need a paid plan: ${why}. Subscribe with POST /v1/platform-billing/subscribe.`, {
    param: null,
    trial: access.trial.status,
  });
}
