import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether two secrets (tokens, shared keys) are equal, in a time that tells nothing of where they differ nor of the
 * expected one's length: node's timingSafeEqual over their SHA-256 digests, which are always 32 bytes.
 */
export function secretsEqual(expected: string, presented: string): boolean {
  return timingSafeEqual(sha256Digest(expected), sha256Digest(presented));
}

/** The SHA-256 digest of a text's UTF-8 bytes: what secrets are compared (and, for client secrets, stored) as. */
export function sha256Digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
