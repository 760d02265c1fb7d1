/**
 * Subscriptions (contract.md 4; docs/subscriptions.md): the routes, and the renewal worker that charges due periods
 * through the payments capability (built after payments: it takes its `triggeredPayments`).
 */
import { ManageSubscriptions } from '../../application/subscriptions/manage-subscriptions';
import { RenewSubscriptions } from '../../application/subscriptions/renew-subscriptions';
import type { SubscriptionDeps } from '../../application/subscriptions/subscription-deps';
import type { CreatePayment } from '../../application/payments/create-payment';
import { subscriptionRoutes } from '../../edge/routes/subscriptions.routes';
import { SqlCustomerRepository, SqlSavedPaymentMethodRepository } from '../persistence/customer.repository';
import { SqlSubscriptionRepository } from '../persistence/subscription.repository';
import type { Core } from './core';
import type { BuiltModule, ModuleDefinition } from './module';
import { PaymentRenewalCharges } from './subscription-renewal-charges';
import { taskPoolWorker } from './task-pool-worker';

export interface SubscriptionsNeeds {
  readonly triggeredPayments: CreatePayment;
}

export interface SubscriptionsServices {
  /** The renewal worker's task (tests play the worker with it on a manual clock). */
  readonly subscriptionRenewals: RenewSubscriptions;
}

export interface SubscriptionsModuleOptions {
  /** How often the worker looks for due renewals while it found none (default 5 s). */
  readonly scanIntervalMs?: number;
  /** Renewals charged at once (default 4). */
  readonly concurrency?: number;
}

export function subscriptionsModule(options: SubscriptionsModuleOptions = {}): ModuleDefinition<SubscriptionsNeeds, SubscriptionsServices> {
  return {
    name: 'subscriptions',
    build(core: Core, needs: SubscriptionsNeeds): BuiltModule<SubscriptionsServices> {
      const deps: SubscriptionDeps = {
        transactor: core.transactor,
        outbox: core.outbox,
        clock: core.clock,
        ids: core.ids,
        subscriptions: new SqlSubscriptionRepository(),
        customers: new SqlCustomerRepository(),
        paymentMethods: new SqlSavedPaymentMethodRepository(),
        charges: new PaymentRenewalCharges(core.transactor, needs.triggeredPayments),
      };
      const renewals = new RenewSubscriptions(deps);
      return {
        provides: { subscriptionRenewals: renewals },
        routes: subscriptionRoutes({ subscriptions: new ManageSubscriptions(deps) }),
        workers: [
          taskPoolWorker({
            name: 'subscription-renewals',
            concurrency: options.concurrency ?? 4,
            idleMs: options.scanIntervalMs ?? 5_000,
            claim: (limit) => renewals.claim(limit),
            work: (claimed) => renewals.renew(claimed),
            keyOf: (claimed) => claimed.subscriptionId,
            onError: (error) => core.logger.error({ err: error }, 'subscription renewal failed'),
          }),
        ],
      };
    },
  };
}

export const SUBSCRIPTIONS_MODULE = subscriptionsModule();
