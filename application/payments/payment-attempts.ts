import type { PaymentAttempt } from '../../domain/payment/payment';

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
