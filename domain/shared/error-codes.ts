/**
 * Every code a rule of the domain or a use case can refuse with. Clients see these codes and branch on them, so a
 * code is never renamed or reused for another meaning; a new one is added here, and `tsc` then asks for its HTTP
 * status in edge/http/error-status.ts. Codes only the edge raises (an unreadable request, a limit, a failure of the
 * service itself) are listed there.
 */
export const ERROR_CODES = [
  // Any resource
  'validation_failed',
  'not_found',
  'resource_missing',
  'invalid_state',
  'conflict',
  'idempotency_conflict',
  'unauthorized',
  'forbidden',

  // Payments, refunds and their operations
  'sensitive_card_data',
  'unsupported_payment_method',
  'payment_method_invalid',
  'customer_incomplete',
  'invalid_decline',
  'amount_exceeds_available',
  'payment_not_capturable',
  'boleto_refund_not_supported',
  'operation_declined',
  'payment_expired',
  'checkout_not_available',
  'checkout_not_configured',
  'invalid_client_secret',
  'hosted_checkout_required',

  // Connectors and connector accounts
  'connector_not_allowed_in_environment',
  'connector_not_available',
  'connector_verification_failed',
  'connector_account_in_use',
  'connector_unavailable',

  // Webhooks
  'invalid_webhook_url',
  'internal_address_blocked',
  'webhook_url_taken',
  'webhook_endpoint_limit_reached',
  'endpoint_disabled',
  'unknown_event_type',
  'event_type_not_subscribable',
  'invalid_custom_header',
  'reserved_custom_header',
  'too_many_custom_headers',

  // Accounts, sign-in and security
  'invalid_credentials',
  'invalid_challenge',
  'invalid_mfa_code',
  'invalid_recovery_code',
  'invalid_current_password',
  'invalid_reset_token',
  'mfa_setup_required',
  'email_already_registered',
  'email_disabled',
  'blocked_by_security_policy',

  // Platform billing
  'production_access_required',
  'catalog_version_mismatch',
  'already_subscribed',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
