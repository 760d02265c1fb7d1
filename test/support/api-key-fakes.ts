/**
 * Hand-written fakes of the API-key and organization ports, for use-case unit tests with no I/O. Secrets are
 * predictable (a counter); their hash does not contain them, so a test can tell that a secret was not stored.
 */
import { createHash } from 'node:crypto';
import { API_KEY_PREFIX, type ApiKey } from '../../domain/api-key/api-key';
import type { Organization } from '../../domain/organization/organization';
import type { ApiKeyRepository } from '../../domain/ports/api-key-repository';
import type { ApiKeySecrets } from '../../domain/ports/api-key-secrets';
import type { OrganizationRepository } from '../../domain/ports/organization-repository';
import type { Transaction } from '../../domain/ports/transactor';
import type { Environment } from '../../domain/shared/environment';

export class InMemoryOrganizations implements OrganizationRepository {
  readonly rows = new Map<string, Organization>();
  async insert(_tx: Transaction, organization: Organization) {
    this.rows.set(organization.id, { ...organization });
  }
  async findById(_tx: Transaction, id: string) {
    const found = this.rows.get(id);
    return found ? { ...found } : null;
  }
  /** Seeds an organization. */
  add(id: string): this {
    this.rows.set(id, { id, name: `Organization ${id}`, parentOrganizationId: null, createdAt: new Date('2026-01-01T00:00:00.000Z') });
    return this;
  }
}

export class InMemoryApiKeys implements ApiKeyRepository {
  readonly rows: ApiKey[] = [];
  /** How many lookups by hash reached the "database". */
  lookups = 0;
  async insert(_tx: Transaction, key: ApiKey) {
    this.rows.push({ ...key, scopes: [...key.scopes] });
  }
  async findActiveByHash(_tx: Transaction, secretHash: string) {
    this.lookups += 1;
    const found = this.rows.find((k) => k.secretHash === secretHash && !k.revokedAt);
    return found ? { ...found } : null;
  }
  async listByOrganization(_tx: Transaction, organizationId: string, environment?: Environment) {
    return this.rows.filter((k) => k.organizationId === organizationId && (!environment || k.environment === environment));
  }
  async revoke(_tx: Transaction, organizationId: string, id: string, at: Date) {
    const index = this.rows.findIndex((k) => k.organizationId === organizationId && k.id === id && !k.revokedAt);
    if (index >= 0) this.rows[index] = { ...this.rows[index]!, revokedAt: at };
    return index >= 0;
  }
}

export class CountingApiKeySecrets implements ApiKeySecrets {
  private n = 0;
  generate(environment: Environment): string {
    return `${API_KEY_PREFIX[environment]}secret${String(++this.n).padStart(8, '0')}`;
  }
  hash(secret: string): string {
    return `sha256:${createHash('sha256').update(secret).digest('hex')}`;
  }
}
