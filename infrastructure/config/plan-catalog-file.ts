import { readFileSync } from 'node:fs';
import { InvalidPlanCatalog, parsePlanCatalog, type PlanCatalog } from '../../domain/billing/plan-catalog';
import defaultCatalog from './platform-billing-catalog.json';
import { ConfigError } from './config';

/**
 * The plan catalog the operator edits (PLATFORM_BILLING_CATALOG), or the repository's default
 * (infrastructure/config/platform-billing-catalog.json, compiled into the build). Checked at start: a file that
 * cannot be read or holds a bad price stops the service with one sentence naming the file and the field.
 */
export function loadPlanCatalog(file: string | null): PlanCatalog {
  const where = file ? `PLATFORM_BILLING_CATALOG (${file})` : 'the default plan catalog';
  let raw: unknown = defaultCatalog;
  if (file) {
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new ConfigError(`${where} cannot be read as JSON: ${(error as Error).message}`);
    }
  }
  try {
    return parsePlanCatalog(raw);
  } catch (error) {
    if (error instanceof InvalidPlanCatalog) throw new ConfigError(`${where}: ${error.message}`);
    throw error;
  }
}
