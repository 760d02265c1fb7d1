import { findPlan, type BillingInterval } from '../../domain/billing/plan-catalog';
import { annualPrepaidLines, type Subscription } from '../../domain/billing/subscription';
import { linesTotalCents } from '../../domain/billing/invoice-computation';
import type { StoredInvoice } from '../../domain/ports/platform-billing';
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import type { BillingDeps } from './billing-deps';
import { invoiceView, subscriptionView } from './billing-views';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface SubscribeCommand {
  readonly organizationId: string;
  readonly userId: string;
  /** The caller's role in the organization: only the owner subscribes (spec, Authentication 4). */
  readonly role: string;
  readonly planCode: string;
  readonly billingInterval: BillingInterval;
  /** The catalog version the merchant saw; absent: the one in force. */
  readonly planVersion?: number;
  readonly acceptedTerms: boolean;
}

/**
 * Subscribes the company to a plan at the prices of the catalog in force. Monthly is post-paid and opens production
 * at once; annual is prepaid (one invoice of 10 monthly fees) and opens production when that invoice is settled.
 * No card is debited.
 */
export class SubscribeToPlan {
  constructor(private readonly deps: BillingDeps) {}

  async execute(command: SubscribeCommand) {
    const { catalog } = this.deps;
    if (command.role !== 'owner') throw new DomainError('forbidden', 'Only the company owner can subscribe to a plan');
    if (command.acceptedTerms !== true) throw new DomainError('validation_failed', 'The terms must be accepted', { param: 'body.acceptedTerms' });
    if (command.planVersion !== undefined && command.planVersion !== catalog.version) {
      throw new DomainError('catalog_version_mismatch', `Prices changed: the catalog is at version ${catalog.version}; read it again and confirm`, {
        param: 'body.planVersion',
      });
    }
    const plan = findPlan(catalog, command.planCode);
    if (!plan) throw new DomainError('validation_failed', `No plan ${command.planCode} in the catalog`, { param: 'body.planCode' });

    return this.deps.transactor.run(async (tx) => {
      const companyId = await this.deps.billing.companyOf(tx, command.organizationId);
      if (!companyId) throw new NotFoundError('organization', command.organizationId);
      if (await this.deps.billing.subscription(tx, companyId, { forUpdate: true })) {
        throw new DomainError('already_subscribed', 'The company already has a plan');
      }
      const now = this.deps.clock.now();
      const annual = command.billingInterval === 'annual';
      const prepaid: StoredInvoice | null = annual
        ? {
            id: this.deps.ids.next('inv_'),
            companyId,
            kind: 'annual_prepaid',
            month: null,
            currency: catalog.currency,
            lines: annualPrepaidLines(plan),
            totalCents: linesTotalCents(annualPrepaidLines(plan)),
            issuedAt: now,
            dueAt: new Date(now.getTime() + catalog.invoiceDueDays * DAY_MS),
            entries: [],
          }
        : null;
      const paidThrough = new Date(now);
      paidThrough.setUTCFullYear(paidThrough.getUTCFullYear() + 1);
      const subscription: Subscription = {
        companyId,
        plan,
        catalogVersion: catalog.version,
        interval: command.billingInterval,
        acceptedBy: command.userId,
        startedAt: now,
        paidThrough: annual ? paidThrough : null,
        productionReleasedAt: annual ? null : now,
        prepaidInvoiceId: prepaid?.id ?? null,
      };
      if (!(await this.deps.billing.insertSubscription(tx, subscription))) throw new DomainError('already_subscribed', 'The company already has a plan');
      if (prepaid) await this.deps.billing.insertInvoice(tx, prepaid);
      return { ...subscriptionView(subscription), invoice: prepaid ? invoiceView(prepaid, now, catalog.paymentInstructions) : null };
    });
  }
}
