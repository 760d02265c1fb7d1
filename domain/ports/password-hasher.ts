/** Slow, salted password hashing (memory-hard). `verify` is constant-time and never throws on a bad hash. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, encoded: string): Promise<boolean>;
}
