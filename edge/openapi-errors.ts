/**
 * The 4xx answers each operation of the OpenAPI document lists. Most follow from the route definition itself
 * (authentication, path ids, a body or query, Idempotency-Key, rate limits); the domain refusals a use case can
 * give are named per operation in REFUSALS, which test/e2e/reference/openapi.test.ts keeps in step with the
 * routes (an operation named here that no route has fails it). Statuses come from the one error-code table.
 */
import type { RouteDefinition } from './http/route';
import { statusForCode } from './http/error-status';

/** Every code an error body can carry (the error-code table's keys). */
type ApiErrorCode = Parameters<typeof statusForCode>[0];

/** Domain refusals beyond those the route definition implies, by operationId. */
export const REFUSALS: Readonly<Record<string, readonly ApiErrorCode[]>> = {
  register: ['email_already_registered'],
  login: ['invalid_credentials'],
  mfaStatus: ['invalid_challenge'],
  mfaSetup: ['invalid_challenge', 'invalid_state'],
  mfaVerify: ['invalid_challenge', 'invalid_mfa_code', 'invalid_recovery_code', 'invalid_state', 'mfa_setup_required'],
  changePassword: ['invalid_current_password'],
  regenerateRecoveryCodes: ['invalid_mfa_code'],
  checkPasswordReset: ['invalid_reset_token'],
  resetPassword: ['invalid_reset_token'],
  actOnSecurityIncident: ['invalid_state', 'email_disabled'],
  verifyConnectorCredentials: ['connector_not_available', 'connector_verification_failed'],
  createConnectorAccount: ['connector_not_available', 'connector_not_allowed_in_environment', 'connector_verification_failed'],
  updateConnectorAccount: ['connector_verification_failed'],
  deleteConnectorAccount: ['connector_account_in_use'],
  verifyConnectorAccount: ['connector_verification_failed'],
  updateFlow: ['invalid_state'],
  deleteFlow: ['invalid_state'],
  publishFlow: ['invalid_state'],
  unpublishFlow: ['invalid_state'],
  runFlow: ['invalid_state', 'resource_missing'],
  createPayment: ['sensitive_card_data', 'unsupported_payment_method', 'payment_method_invalid', 'customer_incomplete', 'resource_missing', 'production_access_required'],
  capturePayment: ['payment_not_capturable', 'invalid_state', 'amount_exceeds_available'],
  reviewPayment: ['invalid_state', 'sensitive_card_data'],
  voidPayment: ['invalid_state'],
  submitPublicThreeDsResult: ['invalid_client_secret', 'invalid_state', 'payment_expired'],
  refundPayment: ['invalid_state', 'boleto_refund_not_supported', 'amount_exceeds_available'],
  savePaymentMethod: ['sensitive_card_data', 'payment_method_invalid'],
  createSubscription: ['resource_missing', 'payment_method_invalid'],
  cancelSubscription: ['invalid_state'],
  createWebhookEndpoint: ['webhook_endpoint_limit_reached', 'invalid_webhook_url', 'internal_address_blocked', 'unknown_event_type', 'event_type_not_subscribable', 'invalid_custom_header', 'reserved_custom_header', 'too_many_custom_headers'],
  updateWebhookEndpoint: ['invalid_webhook_url', 'internal_address_blocked', 'unknown_event_type', 'event_type_not_subscribable', 'invalid_custom_header', 'reserved_custom_header', 'too_many_custom_headers'],
  testWebhookEndpoint: ['endpoint_disabled'],
  retryWebhookDelivery: ['endpoint_disabled'],
  subscribePlatformPlan: ['catalog_version_mismatch', 'already_subscribed'],
};

const MESSAGES: Partial<Record<ApiErrorCode, string>> = {
  invalid_json: 'The request body is not valid JSON',
  bad_request: 'The path parameter id contains text that cannot be stored',
  payload_too_large: 'The request body is larger than 1 MB',
  unsupported_media_type: 'Send the request body as JSON, with Content-Type: application/json',
  unauthorized: 'Send a valid API key or access token as Authorization: Bearer <key>',
  forbidden: 'This key lacks the scope this operation needs',
  not_found: 'No such resource',
  idempotency_conflict: 'This Idempotency-Key was used with another request body, or its first request is still running',
  validation_failed: 'The request is invalid',
  rate_limited: 'Too many requests; retry after the Retry-After header',
};

/** The error codes an operation can answer with, by HTTP status (4xx only; 5xx are the `default` answer). */
export function refusalsOf(route: RouteDefinition): Map<number, ApiErrorCode[]> {
  const codes: ApiErrorCode[] = [];
  const authenticated = route.auth === 'merchant' || route.auth === 'session';
  const readsBody = route.method !== 'get' && route.method !== 'delete';
  if (readsBody) codes.push('invalid_json', 'payload_too_large', 'unsupported_media_type');
  if (route.path.includes(':')) codes.push('bad_request'); // a path id holding text the database cannot store
  if (authenticated) codes.push('unauthorized', 'forbidden');
  if (route.path.includes(':')) codes.push('not_found');
  if (route.idempotent) codes.push('idempotency_conflict');
  // Every route refuses query text the database cannot store, besides a body or query against its schema.
  codes.push('validation_failed');
  if (route.rateLimits?.length) codes.push('rate_limited');
  codes.push(...(REFUSALS[route.operationId] ?? []));
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of codes) {
    const status = statusForCode(code);
    if (status < 400 || status >= 500) continue;
    const list = byStatus.get(status) ?? [];
    if (!list.includes(code)) list.push(code);
    byStatus.set(status, list);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/** The OpenAPI response object for one status: the shared error schema, the codes it can carry, an example. */
export function errorResponse(status: number, codes: readonly ApiErrorCode[]): Record<string, unknown> {
  const code = codes[0];
  return {
    description: `Error codes: ${codes.map((each) => `\`${each}\``).join(', ')}.`,
    ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } } } : {}),
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        example: {
          error: {
            code,
            message: MESSAGES[code] ?? code.replace(/_/g, ' ').replace(/^./, (first) => first.toUpperCase()),
            param: code === 'validation_failed' ? 'body.amount' : null,
            details: code === 'validation_failed' ? [{ param: 'body.amount', message: 'must be >= 1' }] : [],
            requestId: 'req_01JF3Q8Z4N6V2K7T9W5X1Y3C8D',
          },
        },
      },
    },
  };
}
