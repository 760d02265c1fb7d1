/**
 * Every capability module, in build order (a module may use services of the modules before it).
 * Add one line per module.
 */
import type { ModuleDefinition } from './module';

export const MODULES: ModuleDefinition[] = [];
