import { createHash, randomBytes } from 'node:crypto';
import { API_KEY_PREFIX } from '../../domain/api-key/api-key';
import type { ApiKeySecrets } from '../../domain/ports/api-key-secrets';
import type { Environment } from '../../domain/shared/environment';

/**
 * 32 random bytes (base64url) after the environment prefix. A key is high-entropy, so a plain SHA-256
 * is a sound lookup hash (no salt needed, unlike passwords) and keeps authentication to one indexed read.
 */
export class RandomApiKeySecrets implements ApiKeySecrets {
  generate(environment: Environment): string {
    return `${API_KEY_PREFIX[environment]}${randomBytes(32).toString('base64url')}`;
  }
  hash(secret: string): string {
    return createHash('sha256').update(secret, 'utf8').digest('hex');
  }
}
