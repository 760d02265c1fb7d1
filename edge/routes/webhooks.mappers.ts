import type { DeliveryAttempt } from '../../domain/webhook/webhook-delivery';
import { maskCustomHeaders } from '../../domain/webhook/custom-headers';
import { RETRY_JITTER, maxAttempts, type RetryPolicy } from '../../domain/webhook/retry-policy';
import type { WebhookDelivery } from '../../domain/webhook/webhook-delivery';
import type { WebhookEndpoint } from '../../domain/webhook/webhook-endpoint';
import { endpointReceives } from '../../domain/webhook/webhook-endpoint.transitions';
import type { DeliveryRecord, EndpointStatistics, EventRecord } from '../../application/webhook/webhook-read-model';

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

export function deliveryRowView(delivery: DeliveryRecord) {
  return {
    object: 'webhook_delivery',
    id: delivery.id,
    endpointId: delivery.endpointId,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    nextRetryAt: iso(delivery.nextRetryAt),
    test: delivery.isTest,
    response: delivery.lastResponse ? { status: delivery.lastResponse.status, truncated: delivery.lastResponse.truncated } : null,
    createdAt: iso(delivery.createdAt),
    updatedAt: iso(delivery.updatedAt),
  };
}

/** Detail: the exact signed body, headers as sent (extras masked, no signature), the stored response and every attempt. */
export function deliveryDetailView(delivery: DeliveryRecord, attempts: readonly DeliveryAttempt[], url: string | null) {
  return {
    ...deliveryRowView(delivery),
    request: { method: 'POST', url, headers: delivery.requestHeaders, body: delivery.body },
    response: delivery.lastResponse
      ? { status: delivery.lastResponse.status, body: delivery.lastResponse.body, truncated: delivery.lastResponse.truncated }
      : null,
    attemptHistory: attempts.map((a) => ({
      number: a.number,
      startedAt: iso(a.startedAt),
      durationMs: a.durationMs,
      responseStatus: a.responseStatus,
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

export function eventView(event: EventRecord) {
  return {
    id: event.id,
    type: event.type,
    apiVersion: event.apiVersion,
    createdAt: iso(event.createdAt),
    environment: event.environment,
    sequence: event.sequence,
    data: event.data,
  };
}
