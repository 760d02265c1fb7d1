import type { PaymentAttempt } from '../../domain/payment/payment';
import { isConnectorFailure } from '../../domain/shared/connector-failure';
import type { Transaction } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from './payment-deps';

/** How a call that brought no business answer ended; a failure before anything was sent is neither. */
export interface CallFailure {
  readonly timeout: boolean;
  /** The request may have been acted on (a deadline after sending, a connection dropped before the answer). */
  readonly outcomeUnknown: boolean;
}

export const NOT_SENT: CallFailure = { timeout: false, outcomeUnknown: false };

export function callFailureOf(error: unknown): CallFailure {
  if (!isConnectorFailure(error)) return NOT_SENT;
  return { timeout: error.kind === 'timeout', outcomeUnknown: error.kind === 'timeout' || error.outcomeUnknown };
}

/**
 * The record of an attempt the acquirer did not answer with a business outcome: a technical failure, or a
 * timeout; either is reconciled later when its outcome is unknown. Shared by the request path and the recovery
 * worker.
 */
export function technicalAttempt(id: string, accountId: string, slug: string, started: Date, latencyMs: number, message: string, failure: CallFailure): PaymentAttempt {
  return {
    id,
    connectorAccountId: accountId,
    connectorSlug: slug,
    rawCode: null,
    classification: failure.timeout ? 'TIMEOUT' : 'TECHNICAL_FAILURE',
    latencyMs,
    outcome: failure.timeout ? 'timeout' : 'technical_failure',
    message: message.slice(0, 500),
    startedAt: started.toISOString(),
    ...(failure.outcomeUnknown && !failure.timeout ? { outcomeUnknown: true as const } : {}),
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
