import { maskCustomHeaders, type CustomHeaders } from './custom-headers';

export const WEBHOOK_USER_AGENT = 'Service-Webhooks/1.0';

export interface DeliveryHeaderInput {
  readonly eventId: string;
  readonly eventType: string;
  readonly attempt: number;
  readonly apiVersion: string;
  readonly signature: string;
  readonly customHeaders: CustomHeaders;
}

/**
 * Exactly the spec's headers (Events, Delivery) plus the endpoint's extra headers. Service headers are written
 * last; registration already refuses extra headers that would collide, this ordering is the second guard.
 */
export function deliveryHeaders(input: DeliveryHeaderInput): Record<string, string> {
  return {
    ...input.customHeaders,
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    'Service-Signature': input.signature,
    'Service-Event-Id': input.eventId,
    'Service-Event-Type': input.eventType,
    'Service-Delivery-Attempt': String(input.attempt),
    'Service-Version': input.apiVersion,
  };
}

/** What the delivery detail shows: extra headers masked and no signature (it changes on every attempt and is not stored). */
export function recordedRequestHeaders(input: Omit<DeliveryHeaderInput, 'signature'>): Record<string, string> {
  const { 'Service-Signature': _omitted, ...rest } = deliveryHeaders({ ...input, signature: '', customHeaders: maskCustomHeaders(input.customHeaders) });
  return rest;
}
