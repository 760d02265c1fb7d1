export * from './decline-classification';
export { cardNetwork, classifyDecline, declineTableCoverage, normalizeRawCode } from './classify-decline';
export type { CardIdentity } from './classify-decline';
export type { DeclineTableCoverage } from './classify-decline';
export { DECLINE_TABLE, BRAND_OVERRIDES, DECLINE_REASONS, UNKNOWN_CODE_FALLBACK } from './decline-table';
export type { CardNetwork } from './decline-table';
