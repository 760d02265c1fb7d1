import { createHmac, randomBytes } from 'node:crypto';
import type { WebhookSigner } from '../../domain/ports/webhook-signer';

export const SECRET_PREFIX = 'whsec_';

export function signatureV1(secret: string, timestampSeconds: number, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.`).update(rawBody).digest('hex');
}

/** Pure function form, handy for tests and the delivery worker alike. */
export function sign(secretsNewestFirst: readonly string[], timestampSeconds: number, rawBody: string | Buffer): string {
  if (secretsNewestFirst.length === 0) throw new Error('sign needs at least one secret');
  if (!Number.isInteger(timestampSeconds)) throw new Error('timestamp must be integer unix seconds');
  return [`t=${timestampSeconds}`, ...secretsNewestFirst.map((s) => `v1=${signatureV1(s, timestampSeconds, rawBody)}`)].join(',');
}

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

export class HmacWebhookSigner implements WebhookSigner {
  sign(secretsNewestFirst: readonly string[], timestampSeconds: number, rawBody: string): string {
    return sign(secretsNewestFirst, timestampSeconds, rawBody);
  }
  generateSecret(): string {
    return generateWebhookSecret();
  }
}
