/**
 * The sandbox acquirer's behaviour table (contract.md section 5). The vault token chooses the outcome:
 * `tok_sandbox_<scenario>` optionally followed by `_<anything>` (the sandbox vault appends a random suffix);
 * the longest scenario name that matches wins, so `tok_sandbox_fraud_review_accept_x` is fraud_review_accept.
 * Any other token is approved.
 */
export type SandboxScenarioName =
  | 'approved'
  | 'insufficient_funds'
  | 'do_not_honor'
  | 'invalid_cvv'
  | 'stolen_card'
  | 'expired_card'
  | 'fraud_review'
  | 'fraud_review_accept'
  | 'fraud_review_reject'
  | 'three_ds'
  | 'processing_error'
  | 'timeout';

export type SandboxScenario =
  | { readonly kind: 'approved'; readonly rawCode: '00'; readonly fraudReview?: 'never_resolved' | 'accept' | 'reject' }
  | { readonly kind: 'declined'; readonly rawCode: string; readonly message: string }
  | { readonly kind: 'three_ds' }
  | { readonly kind: 'processing_error' }
  | { readonly kind: 'timeout' };

export const SANDBOX_SCENARIOS = {
  approved: { kind: 'approved', rawCode: '00' },
  insufficient_funds: { kind: 'declined', rawCode: '51', message: 'Insufficient funds' },
  do_not_honor: { kind: 'declined', rawCode: '05', message: 'Do not honor' },
  invalid_cvv: { kind: 'declined', rawCode: '82', message: 'Invalid CVV' },
  stolen_card: { kind: 'declined', rawCode: '43', message: 'Stolen card, pick up' },
  expired_card: { kind: 'declined', rawCode: '54', message: 'Expired card' },
  fraud_review: { kind: 'approved', rawCode: '00', fraudReview: 'never_resolved' },
  fraud_review_accept: { kind: 'approved', rawCode: '00', fraudReview: 'accept' },
  fraud_review_reject: { kind: 'approved', rawCode: '00', fraudReview: 'reject' },
  three_ds: { kind: 'three_ds' },
  processing_error: { kind: 'processing_error' },
  timeout: { kind: 'timeout' },
} as const satisfies Record<SandboxScenarioName, SandboxScenario>;

const TOKEN_PREFIX = 'tok_sandbox_';
const NAMES_LONGEST_FIRST = (Object.keys(SANDBOX_SCENARIOS) as SandboxScenarioName[]).sort((a, b) => b.length - a.length);

export function scenarioNameForToken(token: string): SandboxScenarioName {
  if (!token.startsWith(TOKEN_PREFIX)) return 'approved';
  const rest = token.slice(TOKEN_PREFIX.length);
  return NAMES_LONGEST_FIRST.find((name) => rest === name || rest.startsWith(`${name}_`)) ?? 'approved';
}

export function scenarioForToken(token: string): SandboxScenario {
  return SANDBOX_SCENARIOS[scenarioNameForToken(token)];
}

/** Capabilities the sandbox acquirer declares in Describe. */
export const SANDBOX_CAPABILITIES = [
  'card',
  'debit_card',
  'pix',
  'boleto',
  'browser_tokenization',
  'three_ds',
  'split',
  'zero_auth',
  'refund',
  'partial_capture',
] as const;

export const SANDBOX_CREDENTIAL_SCHEMA = {
  type: 'object',
  properties: {
    merchantId: { type: 'string', title: 'Merchant ID', minLength: 1, maxLength: 8192 },
    apiKey: { type: 'string', title: 'API key', minLength: 1, maxLength: 8192, 'x-secret': true },
  },
  required: ['merchantId', 'apiKey'],
  additionalProperties: false,
} as const;

export const SANDBOX_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    softDescriptor: { type: 'string', maxLength: 22, title: 'Default soft descriptor' },
    antifraudEnabled: { type: 'boolean', default: false, title: 'Run the acquirer antifraud analysis' },
    captureDeadlineDays: { type: 'integer', minimum: 1, maximum: 30, default: 7, title: 'Days to capture an authorization' },
    preAuthorizationExpiryAction: {
      type: 'string',
      enum: ['notify', 'capture', 'void'],
      default: 'notify',
      title: 'A day before an authorization can no longer be captured: only notify, capture it, or void it',
    },
  },
  additionalProperties: false,
} as const;

/** Verification answer chosen by the apiKey: 'invalid' and 'unreachable' are the test values. */
export function verificationForApiKey(apiKey: string): 'valid' | 'invalid' | 'unreachable' {
  if (apiKey === 'invalid') return 'invalid';
  if (apiKey === 'unreachable') return 'unreachable';
  return 'valid';
}
