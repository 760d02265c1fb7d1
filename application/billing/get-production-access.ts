import { productionAccess } from '../../domain/billing/production-access';
import { NotFoundError } from '../../domain/shared/domain-error';
import type { BillingDeps } from './billing-deps';
import { accessView } from './billing-views';

/** The company's free production allowance and plan, whatever environment the caller selected. */
export class GetProductionAccess {
  constructor(private readonly deps: BillingDeps) {}

  async execute(organizationId: string) {
    return this.deps.transactor.run(async (tx) => {
      const companyId = await this.deps.billing.companyOf(tx, organizationId);
      if (!companyId) throw new NotFoundError('organization', organizationId);
      const subscription = await this.deps.billing.subscription(tx, companyId);
      const access = productionAccess(await this.deps.billing.allowance(tx, companyId), subscription, this.deps.clock.now());
      return accessView(companyId, access, subscription);
    });
  }
}
