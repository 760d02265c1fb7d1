import type { PaymentAttempt } from '../../domain/payment/payment';
import type { Transaction } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from './payment-deps';

/**
 * The record of an attempt the acquirer did not answer with a business outcome: a technical failure, or a
 * timeout whose outcome is unknown (reconciled later). Shared by the request path and the recovery worker.
 */
export function technicalAttempt(id: string, accountId: string, slug: string, started: Date, latencyMs: number, message: string, timeout: boolean): PaymentAttempt {
  return {
    id,
    connectorAccountId: accountId,
    connectorSlug: slug,
    rawCode: null,
    classification: timeout ? 'TIMEOUT' : 'TECHNICAL_FAILURE',
    latencyMs,
    outcome: timeout ? 'timeout' : 'technical_failure',
    message: message.slice(0, 500),
    startedAt: started.toISOString(),
  };
}

/**
 * Queues one health record per connector call the attempts made, in the unit that records their outcome. A
 * recovered intent whose outcome is unknown is skipped; an account that could not be opened (credentials unreadable,
 * adapter missing) counts as a technical failure of that account, which is what its health should show.
 */
export async function recordCalls(deps: PaymentDeps, tx: Transaction, scope: TenantScope, attempts: readonly PaymentAttempt[]): Promise<void> {
  if (!deps.recordCall) return;
  for (const a of attempts) {
    if (!a.connectorSlug || (a.latencyMs === 0 && a.outcome === 'timeout')) continue;
    await deps.recordCall(tx, scope, a.connectorAccountId, { operation: 'authorize', outcome: a.outcome === 'fraud_review' ? 'approved' : a.outcome, latencyMs: a.latencyMs });
  }
}
