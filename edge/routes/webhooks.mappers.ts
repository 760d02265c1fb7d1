import { maskCustomHeaders } from '../../domain/webhook/custom-headers';
import { RETRY_JITTER, maxAttempts, type RetryPolicy } from '../../domain/webhook/retry-policy';
import type { WebhookDelivery } from '../../domain/webhook/webhook-delivery';
import type { WebhookEndpoint } from '../../domain/webhook/webhook-endpoint';
import { endpointReceives } from '../../domain/webhook/webhook-endpoint.transitions';
import type { AttemptRow, DeliveryRow } from '../../infrastructure/persistence/webhook-delivery.repository';
import type { EndpointStatistics, EventRowFull } from '../../infrastructure/persistence/webhook-read-model';

const iso = (d: Date | string | null | undefined): string | null => (d === null || d === undefined ? null : new Date(d).toISOString());

export interface DeliveryPolicySettings {
  readonly retryPolicy: RetryPolicy;
  readonly timeoutMs: number;
}

export function deliveryPolicyView(settings: DeliveryPolicySettings) {
  return {
    maxAttempts: maxAttempts(settings.retryPolicy),
    retryScheduleSeconds: [...settings.retryPolicy.scheduleSeconds],
    jitter: RETRY_JITTER,
    timeoutMs: settings.timeoutMs,
    autoDisable: { consecutiveFailures: 20, daysWithoutSuccess: 3 },
  };
}

/** The public endpoint: never the secret (only creation and rotation add it), extra header values masked. */
export function endpointView(endpoint: WebhookEndpoint, now: Date, statistics?: EndpointStatistics, settings?: DeliveryPolicySettings) {
  const s = endpoint.state;
  return {
    object: 'webhook_endpoint',
    id: s.id,
    url: s.url,
    description: s.description,
    enabledEvents: [...s.enabledEvents],
    customHeaders: maskCustomHeaders(s.customHeaders),
    enabled: endpointReceives(s.status),
    status: s.status,
    consecutiveFailures: s.consecutiveFailures,
    disabledReason: s.disabledReason,
    secretRotation: { previousSecretExpiresAt: iso(endpoint.previousSecretExpiresAt(now)) },
    environment: s.environment,
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
    ...(statistics ? { statistics: { ...statistics, deliveryPolicy: settings ? deliveryPolicyView(settings) : undefined } } : {}),
  };
}

export function deliveryRowView(row: DeliveryRow) {
  return {
    object: 'webhook_delivery',
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: Number(row.attempts),
    nextRetryAt: iso(row.next_retry_at),
    test: row.is_test,
    response: row.last_response ? { status: row.last_response.status, truncated: row.last_response.truncated } : null,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** Detail: the exact signed body, headers as sent (extras masked, no signature), the stored response and every attempt. */
export function deliveryDetailView(row: DeliveryRow, attempts: AttemptRow[], url: string | null) {
  return {
    ...deliveryRowView(row),
    request: { method: 'POST', url, headers: row.request_headers ?? null, body: row.body },
    response: row.last_response ? { status: row.last_response.status, body: row.last_response.body, truncated: row.last_response.truncated } : null,
    attemptHistory: attempts.map((a) => ({
      number: Number(a.number),
      startedAt: iso(a.started_at),
      durationMs: Number(a.duration_ms),
      responseStatus: a.response_status === null ? null : Number(a.response_status),
      succeeded: a.succeeded,
      error: a.error,
    })),
  };
}

/**
 * A delivery just attempted (test delivery): the status and body the customer's server answered, or `error` saying
 * why it did not answer (a delivery read back from its row carries no attempt log, so the attempt's error is passed).
 */
export function attemptedDeliveryView(delivery: WebhookDelivery, url: string, error: string | null) {
  const s = delivery.state;
  return {
    object: 'webhook_delivery',
    id: s.id,
    endpointId: s.endpointId,
    eventId: s.eventId,
    eventType: s.eventType,
    status: s.status,
    attempts: s.attempts,
    nextRetryAt: iso(s.nextRetryAt),
    test: s.isTest,
    request: { method: 'POST', url, body: s.body },
    response: s.lastResponse ? { status: s.lastResponse.status, body: s.lastResponse.body, truncated: s.lastResponse.truncated } : null,
    error,
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
  };
}

export function eventView(row: EventRowFull) {
  return {
    id: row.id,
    type: row.type,
    apiVersion: row.api_version,
    createdAt: iso(row.created_at),
    environment: row.environment,
    sequence: Number(row.sequence),
    data: row.data,
  };
}
