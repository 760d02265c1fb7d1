/**
 * The one table from error codes (domain and edge) to HTTP statuses. Codes not listed are 422 when they
 * come from a DomainError (a rule refused the input) — add the code here when it deserves another status.
 */
export const ERROR_STATUS: Readonly<Record<string, number>> = {
  invalid_json: 400,
  bad_request: 400,
  unauthorized: 401,
  invalid_client_secret: 401,
  forbidden: 403,
  blocked_by_security_policy: 403,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_conflict: 409,
  invalid_state: 409,
  payment_not_capturable: 409,
  boleto_refund_not_supported: 409,
  connector_account_in_use: 409,
  conflict: 409,
  payment_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  amount_exceeds_available: 422,
  rate_limited: 429,
  endpoint_disabled: 409,
  webhook_url_taken: 409,
  webhook_endpoint_limit_reached: 409,
  invalid_credentials: 401,
  invalid_challenge: 401,
  invalid_mfa_code: 401,
  invalid_recovery_code: 401,
  email_already_registered: 409,
  mfa_setup_required: 409,
  email_disabled: 409,
  internal_error: 500,
  service_unavailable: 503,
  connector_unavailable: 503,
};

export function statusForCode(code: string): number {
  return ERROR_STATUS[code] ?? 422;
}
