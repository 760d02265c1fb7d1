/**
 * Encrypts connector credentials at rest (AES-256-GCM in `infrastructure/crypto`). Every ciphertext names the
 * key that sealed it, so the key can rotate: new writes use the current key, reads accept any key still known.
 * `context` is bound to the ciphertext (associated data), so a sealed value copied to another record fails.
 */
export interface SealedSecret {
  readonly keyId: string;
  /** Opaque, storable text (IV, tag and ciphertext). */
  readonly ciphertext: string;
}

export interface CredentialCipher {
  seal(plaintext: string, context: string): SealedSecret;
  /** Throws when the key is unknown or the value was tampered with. */
  open(sealed: SealedSecret, context: string): string;
  /** Id of the key new values are sealed with. */
  readonly currentKeyId: string;
}
