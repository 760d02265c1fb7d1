/**
 * Every capability module, in build order (a module may use services of the modules before it).
 * Add one line per module.
 */
import type { ModuleDefinition } from './module';
import { IDENTITY_MODULE } from './identity.module';
import { CONNECTORS_MODULE } from './connectors.module';
import { FLOWS_MODULE } from './flows.module';
import { PAYMENTS_MODULE } from './payments.module';
import { WEBHOOKS_MODULE } from './webhooks.module';

export const MODULES: ModuleDefinition[] = [
  IDENTITY_MODULE,
  CONNECTORS_MODULE,
  FLOWS_MODULE,
  PAYMENTS_MODULE,
  WEBHOOKS_MODULE,
];
