/** How long an Idempotency-Key answers for its first request (contract.md section 3). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
