import type { CredentialCipher } from '../../domain/ports/credential-cipher';

/**
 * One storable text form for values sealed with the credentials key: `sealed:<keyId>:<ciphertext>`. The key id
 * travels with the value so CREDENTIALS_KEY can rotate; the context (associated data) names the record the value
 * belongs to, so a sealed value copied into another record does not open.
 */
export const SEALED_PREFIX = 'sealed:';

export function sealText(cipher: CredentialCipher, plaintext: string, context: string): string {
  const sealed = cipher.seal(plaintext, context);
  return `${SEALED_PREFIX}${sealed.keyId}:${sealed.ciphertext}`;
}

export function isSealedText(stored: unknown): stored is string {
  return typeof stored === 'string' && stored.startsWith(SEALED_PREFIX);
}

/** Throws when the value was sealed with a key no longer configured, or for another context, or was altered. */
export function openSealedText(cipher: CredentialCipher | null, stored: string, context: string): string {
  if (cipher === null) throw new Error('a stored value is sealed but no credentials key is configured');
  const rest = stored.slice(SEALED_PREFIX.length);
  const colon = rest.indexOf(':');
  if (colon < 0) throw new Error('malformed sealed value');
  return cipher.open({ keyId: rest.slice(0, colon), ciphertext: rest.slice(colon + 1) }, context);
}
