import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether two secrets (tokens, shared keys) are equal, in a time that tells nothing of where they differ nor of the
 * expected one's length: node's timingSafeEqual over their SHA-256 digests, which are always 32 bytes.
 */
export function secretsEqual(expected: string, presented: string): boolean {
  return timingSafeEqual(digest(expected), digest(presented));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
