import { environmentOfKey, type ApiKey } from '../../domain/api-key/api-key';
import type { ApiKeyRepository } from '../../domain/ports/api-key-repository';
import type { ApiKeySecrets } from '../../domain/ports/api-key-secrets';
import type { ChangeFeed } from '../../domain/ports/change-feed';
import type { Clock } from '../../domain/ports/clock';
import type { Transactor } from '../../domain/ports/transactor';
import { ChangeAwareCache } from '../shared/change-aware-cache';

/**
 * Resolves a presented bearer secret to its active key, or null (unknown, revoked, or not a key).
 * With a change feed, active keys are remembered by secret hash (every API request saves a round trip); unknown
 * secrets are always looked up, so a key works the moment it is created.
 */
export class AuthenticateApiKey {
  private readonly memory: ChangeAwareCache<ApiKey | null> | null;

  constructor(
    private readonly transactor: Transactor,
    private readonly apiKeys: ApiKeyRepository,
    private readonly secrets: ApiKeySecrets,
    remember?: { readonly changes: ChangeFeed; readonly clock: Clock },
  ) {
    this.memory = remember
      ? new ChangeAwareCache<ApiKey | null>(remember.changes, 'api_keys', {
          changeKeyOf: (_hash, key) => key?.id ?? '',
          keep: (key) => key !== null,
          clock: remember.clock,
        })
      : null;
  }

  async execute(secret: string): Promise<ApiKey | null> {
    const claimed = environmentOfKey(secret);
    if (!claimed || secret.length > 256) return null;
    const hash = this.secrets.hash(secret);
    const lookup = () => this.transactor.read((tx) => this.apiKeys.findActiveByHash(tx, hash));
    const key = this.memory ? await this.memory.get(hash, lookup) : await lookup();
    // The prefix is part of the hashed secret, so a match implies the environment; checked anyway.
    return key && key.environment === claimed ? key : null;
  }
}
