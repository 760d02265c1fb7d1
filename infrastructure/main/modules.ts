/**
 * Every capability module, in build order: each `with` gives a module the typed services of the modules before
 * it, so a module placed before what it needs does not compile. Add one `.with(...)` per module.
 */
import { moduleList, type ServicesOf } from './module';
import { IDENTITY_MODULE } from './identity.module';
import { CONNECTORS_MODULE } from './connectors.module';
import { FLOWS_MODULE } from './flows.module';
import { PAYMENTS_MODULE } from './payments.module';
import { BILLING_MODULE } from './billing.module';
import { WEBHOOKS_MODULE } from './webhooks.module';
import { SUBSCRIPTIONS_MODULE } from './subscriptions.module';

export const MODULES = moduleList()
  .with(IDENTITY_MODULE)
  // Flows before connectors: a connector account shows the published flows citing it, and may not be deleted then.
  .with(FLOWS_MODULE)
  .with(CONNECTORS_MODULE)
  // Billing before payments: every live payment passes billing's production gate in its first transaction.
  .with(BILLING_MODULE)
  .with(PAYMENTS_MODULE)
  // Subscriptions after payments: each renewal is a payment made through payments' triggeredPayments.
  .with(SUBSCRIPTIONS_MODULE)
  .with(WEBHOOKS_MODULE);

/** The services the product's modules provide (what a full test service exposes as `services`). */
export type ProductServices = ServicesOf<typeof MODULES>;
