import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { RandomPool } from './random-pool';
import type { CredentialCipher, SealedSecret } from '../../domain/ports/credential-cipher';
import { localKeyFile } from './local-key-file';

/**
 * AES-256-GCM for connector credentials. Format `v1.<iv>.<tag>.<ciphertext>` (base64url), a fresh 12-byte IV
 * per seal, the caller's context as associated data. Keys are known by an id derived from the key itself
 * (first 16 hex digits of its SHA-256), stored beside each ciphertext: rotating means putting the new key first
 * in CREDENTIALS_KEY and keeping the old ones after it until every row was re-sealed.
 */
export class AesGcmCredentialCipher implements CredentialCipher {
  private readonly keys: Map<string, Buffer>;
  readonly currentKeyId: string;
  /** Fresh IVs: every seal draws 12 bytes no other seal got. */
  private readonly nonces = new RandomPool();

  constructor(keys: readonly Buffer[]) {
    if (keys.length === 0) throw new Error('at least one credentials key is required');
    for (const key of keys) if (key.length !== 32) throw new Error('a credentials key must be 32 bytes (AES-256)');
    this.keys = new Map(keys.map((key) => [AesGcmCredentialCipher.keyIdOf(key), key]));
    this.currentKeyId = AesGcmCredentialCipher.keyIdOf(keys[0]!);
  }

  static keyIdOf(key: Buffer): string {
    return createHash('sha256').update(key).digest('hex').slice(0, 16);
  }

  seal(plaintext: string, context: string): SealedSecret {
    const key = this.keys.get(this.currentKeyId)!;
    const iv = this.nonces.bytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return {
      keyId: this.currentKeyId,
      ciphertext: ['v1', iv.toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join('.'),
    };
  }

  open(sealed: SealedSecret, context: string): string {
    const key = this.keys.get(sealed.keyId);
    if (!key) throw new Error(`credentials were sealed with an unknown key (${sealed.keyId}); is CREDENTIALS_KEY complete?`);
    const [version, iv, tag, ciphertext] = sealed.ciphertext.split('.');
    if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('malformed sealed credentials');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/** Accepts base64 (44 chars) or hex (64 chars) encodings of a 32-byte key. */
export function parseCredentialKey(encoded: string): Buffer {
  const value = encoded.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error('CREDENTIALS_KEY entries must be 32 bytes, base64 or hex encoded');
  return key;
}

/**
 * The keys to use: CREDENTIALS_KEY (comma-separated, current first) when set; otherwise (embedded mode) the
 * data directory's key file (created with mode 0600 on first start). A distributed production deployment must
 * set CREDENTIALS_KEY: a key file on one machine would not be shared by the other instances.
 */
export function loadCredentialKeys(options: {
  credentialsKey: string | null;
  dataDir: string;
  deployment: 'local' | 'production';
  /** DATABASE_URL set: several processes share the database, so they must share the key. */
  distributed: boolean;
}): Buffer[] {
  if (options.credentialsKey) return options.credentialsKey.split(',').filter((s) => s.trim()).map(parseCredentialKey);
  if (options.deployment === 'production' && options.distributed) {
    throw new Error('CREDENTIALS_KEY is required for a distributed production deployment (DATABASE_URL set)');
  }
  return [parseCredentialKey(localKeyFile(options.dataDir, 'credentials'))];
}
