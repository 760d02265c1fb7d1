/**
 * Platform billing (docs/billing.md): the plan catalog from the operator's file, the free production trial and the
 * gate every live payment passes in its first transaction, subscription, the overview and invoices, and the monthly
 * closing run once across workers. Built before payments, which count live payments through `productionAccess`.
 */
import type { BillingDeps } from '../../application/billing/billing-deps';
import { BillingOverview } from '../../application/billing/billing-overview';
import { CloseBillingMonth } from '../../application/billing/close-billing-month';
import { GetProductionAccess } from '../../application/billing/get-production-access';
import { PlatformInvoices } from '../../application/billing/platform-invoices';
import { ProductionAccessGate } from '../../application/billing/production-access-gate';
import { RecordInvoiceEntry } from '../../application/billing/record-invoice-entry';
import { SubscribeToPlan } from '../../application/billing/subscribe-to-plan';
import { platformBillingRoutes } from '../../edge/routes/platform-billing.routes';
import { loadPlanCatalog } from '../config/plan-catalog-file';
import { SqlPlatformBillingRepository } from '../persistence/platform-billing.repository';
import type { Core } from './core';
import { periodicWorker, type BuiltModule, type ModuleDefinition } from './module';

export interface BillingModuleOptions {
  /** How often a worker checks whether the last month still has to be closed (default 60 s). */
  readonly closingScanIntervalMs?: number;
}

export interface BillingServices {
  /** Counts every live payment in its creation's tx1 and refuses it without a trial or plan (payments use it). */
  readonly productionAccess: ProductionAccessGate;
  /** The monthly closing (tests run it by hand, and race two workers). */
  readonly billingClosing: CloseBillingMonth;
  /** Operators' receipts and adjustments (the CLI's `billing settle` and `billing adjust`). */
  readonly invoiceEntries: RecordInvoiceEntry;
}

/** Billing's ports over a core; the catalog file is read and checked here, so a bad one stops the start. */
export function billingDeps(core: Core): BillingDeps {
  return {
    transactor: core.transactor,
    clock: core.clock,
    ids: core.ids,
    billing: new SqlPlatformBillingRepository(),
    catalog: loadPlanCatalog(core.config.platformBillingCatalog),
    timeZone: core.config.platformTimeZone,
  };
}

export function billingModule(options: BillingModuleOptions = {}): ModuleDefinition<unknown, BillingServices> {
  return {
    name: 'billing',
    build(core: Core): BuiltModule<BillingServices> {
      const deps = billingDeps(core);
      const closing = new CloseBillingMonth(deps);
      const closingWorker = periodicWorker('platform-billing-closing', options.closingScanIntervalMs ?? 60_000, () => closing.run(), (error) =>
        core.logger.error({ err: error }, 'platform billing monthly closing failed'),
      );
      return {
        provides: { productionAccess: new ProductionAccessGate(deps.billing), billingClosing: closing, invoiceEntries: new RecordInvoiceEntry(deps) },
        routes: platformBillingRoutes({
          catalog: deps.catalog,
          access: new GetProductionAccess(deps),
          subscribe: new SubscribeToPlan(deps),
          overview: new BillingOverview(deps),
          invoices: new PlatformInvoices(deps),
        }),
        workers: [closingWorker],
        health: () => ({ platformBilling: { catalogVersion: deps.catalog.version, timeZone: deps.timeZone } }),
      };
    },
  };
}

export const BILLING_MODULE = billingModule();
