import { environmentOfKey, type ApiKey } from '../../domain/api-key/api-key';
import type { ApiKeyRepository } from '../../domain/ports/api-key-repository';
import type { ApiKeySecrets } from '../../domain/ports/api-key-secrets';
import type { Transactor } from '../../domain/ports/transactor';

/** Resolves a presented bearer secret to its active key, or null (unknown, revoked, or not a key). */
export class AuthenticateApiKey {
  constructor(
    private readonly transactor: Transactor,
    private readonly apiKeys: ApiKeyRepository,
    private readonly secrets: ApiKeySecrets,
  ) {}

  async execute(secret: string): Promise<ApiKey | null> {
    const claimed = environmentOfKey(secret);
    if (!claimed || secret.length > 256) return null;
    const key = await this.transactor.read((tx) => this.apiKeys.findActiveByHash(tx, this.secrets.hash(secret)));
    // The prefix is part of the hashed secret, so a match implies the environment; checked anyway.
    return key && key.environment === claimed ? key : null;
  }
}
