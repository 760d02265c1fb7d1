/**
 * The prose of the OpenAPI document: what a merchant must know before the first call (contract.md 2, 3, 5).
 * The sandbox tables mirror infrastructure/connectors/sandbox/ (scenarios.ts, sandbox-vault.ts); a test
 * (test/e2e/reference/openapi.test.ts) fails when a scenario or test card is missing here.
 */
import { API_VERSION } from '../domain/ports/event-outbox';

export const API_DESCRIPTION = `Payload contract version ${API_VERSION}.

## Authentication
Send an API key as \`Authorization: Bearer sk_sandbox_...\` (or \`sk_live_...\`). A key belongs to one organization
and one environment and carries scopes; a missing or unknown key answers 401 \`unauthorized\`, a key without the
scope an operation names in \`x-scopes\` answers 403 \`forbidden\`. Dashboard access tokens choose their environment
with the header \`Service-Environment: sandbox|live\` (default sandbox).

## Test tokens (sandbox)
Card data never reaches this API: a card number or security code in a request is refused with 422
\`sensitive_card_data\`. Pay with a vault token in \`card.token\`. In the sandbox the token chooses the outcome,
\`tok_sandbox_<scenario>\` (optionally followed by \`_<anything>\`); any other token is approved.

| card.token | outcome | rawCode |
|---|---|---|
| \`tok_sandbox_approved\` | approved | 00 |
| \`tok_sandbox_insufficient_funds\` | declined INSUFFICIENT_FUNDS, reversible, retry later | 51 |
| \`tok_sandbox_do_not_honor\` | declined DO_NOT_HONOR, reversible | 05 |
| \`tok_sandbox_invalid_cvv\` | declined INVALID_CVV, reversible | 82 |
| \`tok_sandbox_stolen_card\` | declined STOLEN_CARD, irreversible | 43 |
| \`tok_sandbox_expired_card\` | declined EXPIRED_CARD, irreversible | 54 |
| \`tok_sandbox_fraud_review\` | authorized, fraud review pending, never resolved by the provider | 00 |
| \`tok_sandbox_fraud_review_accept\` / \`tok_sandbox_fraud_review_reject\` | authorized pending review, resolved by the provider after SANDBOX_FRAUD_REVIEW_DELAY_MS | 00 |
| \`tok_sandbox_three_ds\` | 3-D Secure required | - |
| \`tok_sandbox_processing_error\` | technical failure (routing falls back to the next account) | - |
| \`tok_sandbox_timeout\` | no answer within the connector deadline (routing falls back) | - |

## Test cards (sandbox browser tokenization)
The checkout page posts card numbers to the sandbox vault (never to this API), which answers a token for the
scenario: \`4111111111111111\` approved, \`4000000000009995\` insufficient_funds, \`4000000000000069\` expired_card,
\`4000000000000119\` processing_error, \`4000000000003220\` three_ds, \`4000000000000259\` fraud_review.
Numbers that fail the Luhn check are refused.

## Idempotency
Operations that take an \`Idempotency-Key\` header (payment creation and every POST that moves money) keep the first
answer for 24 hours, per organization, environment and route. The same key with the same body returns that answer
again with \`Idempotent-Replayed: true\`; the same key with another body, or while the first request is still running,
answers 409 \`idempotency_conflict\`. Retry a request whose answer you did not get with the same key: it is never
charged twice.

## Errors
Every error has one shape, \`{"error": {"code", "message", "param", "details", "requestId"}}\` (the \`Error\` schema),
and every response carries a \`Request-Id\` header. \`code\` is stable snake_case: branch on it, not on the message.
\`param\` names the input at fault (\`body.amount\`), \`details\` lists each fault of a refused input.
400 \`invalid_json\`; 401 \`unauthorized\`; 403 \`forbidden\`; 404 \`not_found\`; 409 \`idempotency_conflict\`,
\`invalid_state\` and the named conflicts; 422 \`validation_failed\` (schema violations and unknown fields) and the
named refusals; 429 \`rate_limited\` with \`Retry-After\`; 5xx carry only the request id. Each operation lists the codes
it can answer with. A declined payment is not an error: it is a payment with status \`declined\`.

## Lists
Lists answer \`{"object": "list", "data": [...], "hasMore": bool}\` and page with \`startingAfter\` (the last id seen)
and \`limit\`.
`;

/** Descriptions of the operations' tags, in the order the reference shows them. */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  Payments: 'Card, Pix and boleto payments: create (with a sandbox test token), read, capture, void, refund.',
  Customers: 'Customers and their saved payment methods.',
  Checkout: 'The public checkout a customer\'s browser calls with the payment\'s client secret (Service-Client-Secret), not an API key.',
  Recipients: 'Split recipients.',
  Subscriptions: 'Recurring charges of a customer\'s saved card, renewed by the service.',
  Events: 'The event log that webhooks deliver, readable and pageable.',
  Webhooks: 'Webhook endpoints, their signing secrets and deliveries.',
  Connectors: 'The connector catalog and the organization\'s connector accounts.',
  Flows: 'Payment flows: drafts, versions and the published flow per trigger.',
  'API keys': 'API keys of the organization (dashboard session).',
  'Dashboard authentication': 'Dashboard sign-up, login with MFA and sessions.',
  Security: 'Security policy and incidents.',
  'Platform billing': 'The platform\'s plans, the free production trial, subscription, usage overview and invoices (per company, whatever the environment).',
  Health: 'Liveness, readiness and what the installation runs.',
  Reference: 'This document and its page.',
};
