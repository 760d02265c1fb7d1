import { assertKeyName, type ApiKey } from '../../domain/api-key/api-key';
import { SCOPES, isScope } from '../../domain/api-key/scopes';
import type { ApiKeyRepository } from '../../domain/ports/api-key-repository';
import type { ApiKeySecrets } from '../../domain/ports/api-key-secrets';
import type { Clock } from '../../domain/ports/clock';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type { OrganizationRepository } from '../../domain/ports/organization-repository';
import type { Transactor } from '../../domain/ports/transactor';
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import type { Environment } from '../../domain/shared/environment';

export interface CreateApiKeyInput {
  readonly organizationId: string;
  readonly environment: Environment;
  readonly name: string;
  readonly scopes?: readonly string[];
}

/** The new key, with its secret: the only moment the secret exists outside the caller's hands. */
export interface CreatedApiKey {
  readonly key: ApiKey;
  readonly secret: string;
}

export class CreateApiKey {
  constructor(
    private readonly transactor: Transactor,
    private readonly organizations: OrganizationRepository,
    private readonly apiKeys: ApiKeyRepository,
    private readonly secrets: ApiKeySecrets,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async execute(input: CreateApiKeyInput): Promise<CreatedApiKey> {
    assertKeyName(input.name);
    const scopes = input.scopes ? [...new Set(input.scopes)] : [...SCOPES];
    const unknown = scopes.filter((scope) => !isScope(scope));
    if (unknown.length > 0) {
      throw new DomainError('validation_failed', `Unknown scope: ${unknown.join(', ')}`, { param: 'body.scopes' });
    }
    return this.transactor.run(async (tx) => {
      if (!(await this.organizations.findById(tx, input.organizationId))) throw new NotFoundError('organization', input.organizationId);
      const secret = this.secrets.generate(input.environment);
      const key: ApiKey = {
        id: this.ids.next('key_'),
        organizationId: input.organizationId,
        environment: input.environment,
        name: input.name,
        scopes,
        secretHash: this.secrets.hash(secret),
        last4: secret.slice(-4),
        createdAt: this.clock.now(),
        revokedAt: null,
      };
      await this.apiKeys.insert(tx, key);
      return { key, secret };
    });
  }
}
