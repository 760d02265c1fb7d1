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
  conflict: 409,
  payment_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  amount_exceeds_available: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
};

export function statusForCode(code: string): number {
  return ERROR_STATUS[code] ?? 422;
}
