// The ESM entry re-exports the CommonJS build instead of shipping a second compiled copy: a process that loads
// the package both ways then holds one WebhookVerificationError class, so `instanceof` holds everywhere.
// Keep this list in step with src/index.ts (test/integration/webhook-verifier/package.test.ts compares the two).
import verifier from '../dist/cjs/index.js';

export const { DEFAULT_TOLERANCE_SECONDS, WebhookVerificationError, parseSignatureHeader, verifyWebhook } = verifier;
