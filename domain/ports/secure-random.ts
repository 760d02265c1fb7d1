/** Cryptographically secure random bytes (tokens, secrets, recovery codes); tests may pass a seeded source. */
export interface SecureRandom {
  bytes(length: number): Uint8Array;
}
