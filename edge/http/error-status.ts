import type { ErrorCode } from '../../domain/shared/error-codes';

/**
 * Codes only the edge raises: a request it cannot read or serve, a limit, a failure of the service itself
 * (a dependency down, an unexpected error). The domain's refusals are ERROR_CODES in domain/shared/error-codes.ts.
 */
export const EDGE_ERROR_CODES = [
  'invalid_json',
  'bad_request',
  'method_not_allowed',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'client_closed_request',
  'internal_error',
  'service_unavailable',
] as const;

export type EdgeErrorCode = (typeof EDGE_ERROR_CODES)[number];

/** Every code an error body can carry (contract.md section 3). */
export type ApiErrorCode = ErrorCode | EdgeErrorCode;

/**
 * The one table from error codes to HTTP statuses. It must name every code and no other: a code added to
 * ERROR_CODES or EDGE_ERROR_CODES without a status here fails `tsc`, so no refusal falls to a guessed status.
 */
export const STATUS_OF = {
  invalid_json: 400,
  bad_request: 400,

  unauthorized: 401,
  invalid_client_secret: 401,
  invalid_credentials: 401,
  invalid_challenge: 401,
  invalid_mfa_code: 401,
  invalid_recovery_code: 401,

  production_access_required: 402,

  forbidden: 403,
  blocked_by_security_policy: 403,

  not_found: 404,
  method_not_allowed: 405,

  idempotency_conflict: 409,
  invalid_state: 409,
  conflict: 409,
  payment_not_capturable: 409,
  boleto_refund_not_supported: 409,
  connector_account_in_use: 409,
  endpoint_disabled: 409,
  webhook_url_taken: 409,
  webhook_endpoint_limit_reached: 409,
  email_already_registered: 409,
  mfa_setup_required: 409,
  email_disabled: 409,
  catalog_version_mismatch: 409,
  already_subscribed: 409,

  payment_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,

  // A rule refused the input as sent.
  validation_failed: 422,
  resource_missing: 422,
  sensitive_card_data: 422,
  unsupported_payment_method: 422,
  payment_method_invalid: 422,
  customer_incomplete: 422,
  invalid_decline: 422,
  amount_exceeds_available: 422,
  operation_declined: 422,
  checkout_not_available: 422,
  checkout_not_configured: 422,
  hosted_checkout_required: 422,
  connector_not_allowed_in_environment: 422,
  connector_not_available: 422,
  connector_verification_failed: 422,
  invalid_webhook_url: 422,
  internal_address_blocked: 422,
  unknown_event_type: 422,
  event_type_not_subscribable: 422,
  invalid_custom_header: 422,
  reserved_custom_header: 422,
  too_many_custom_headers: 422,
  invalid_current_password: 422,
  invalid_reset_token: 422,

  rate_limited: 429,
  // nginx's convention: the client hung up; nobody reads the answer, it only marks the request in logs.
  client_closed_request: 499,
  internal_error: 500,
  service_unavailable: 503,
  connector_unavailable: 503,
} as const satisfies Record<ApiErrorCode, number>;

export function statusForCode(code: ApiErrorCode): number {
  return STATUS_OF[code];
}
