import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { PasswordHasher } from '../../domain/ports/password-hasher';

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFKC'), salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/**
 * scrypt (memory-hard), encoded as `scrypt$N$r$p$salt$hash` (base64url) so parameters can be raised later
 * without breaking stored hashes. N=2^15, r=8 costs 32 MiB and tens of milliseconds per guess.
 */
export class ScryptPasswordHasher implements PasswordHasher {
  constructor(private readonly params: { N: number; r: number; p: number } = { N: 2 ** 15, r: 8, p: 1 }) {}

  async hash(password: string): Promise<string> {
    const { N, r, p } = this.params;
    const salt = randomBytes(16);
    const key = await scrypt(password, salt, 32, { N, r, p, maxmem: 256 * N * r });
    return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
  }

  async verify(password: string, encoded: string): Promise<boolean> {
    const parts = encoded.split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
    const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
    if (![N, r, p].every((v) => Number.isInteger(v) && v > 0)) return false;
    const salt = Buffer.from(parts[4]!, 'base64url');
    const expected = Buffer.from(parts[5]!, 'base64url');
    try {
      const key = await scrypt(password, salt, expected.length, { N, r, p, maxmem: 256 * N * r });
      return timingSafeEqual(key, expected);
    } catch {
      return false;
    }
  }
}
