import type { ApiKey } from '../../domain/api-key/api-key';
import type { ApiKeyRepository } from '../../domain/ports/api-key-repository';
import type { Environment } from '../../domain/shared/environment';
import type { Transaction } from '../../domain/ports/transactor';
import { announceChange, entityManager } from './mikro-orm-transactor';

interface ApiKeyRow {
  id: string;
  organization_id: string;
  environment: Environment;
  name: string;
  scopes: string[];
  secret_hash: string;
  last4: string;
  created_at: Date;
  revoked_at: Date | null;
}

const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  organizationId: row.organization_id,
  environment: row.environment,
  name: row.name,
  scopes: row.scopes,
  secretHash: row.secret_hash,
  last4: row.last4,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

// Explicit, not `select *`: a column a migration adds must not change a prepared statement's result type.
const API_KEY_COLUMNS = 'id, organization_id, environment, name, scopes, secret_hash, last4, created_at, revoked_at';

export class SqlApiKeyRepository implements ApiKeyRepository {
  async insert(tx: Transaction, key: ApiKey): Promise<void> {
    await entityManager(tx).execute(
      `insert into api_keys (id, organization_id, environment, name, scopes, secret_hash, last4, created_at, revoked_at)
       values (?, ?, ?, ?, array(select jsonb_array_elements_text(?::jsonb)), ?, ?, ?, ?)`,
      [key.id, key.organizationId, key.environment, key.name, JSON.stringify(key.scopes), key.secretHash, key.last4, key.createdAt, key.revokedAt],
    );
  }

  async findActiveByHash(tx: Transaction, secretHash: string): Promise<ApiKey | null> {
    const rows = await entityManager(tx).execute<ApiKeyRow[]>(
      `select ${API_KEY_COLUMNS} from api_keys where secret_hash = ? and revoked_at is null`,
      [secretHash],
    );
    return rows[0] ? toApiKey(rows[0]) : null;
  }

  async listByOrganization(tx: Transaction, organizationId: string, environment?: Environment): Promise<ApiKey[]> {
    const rows = await entityManager(tx).execute<ApiKeyRow[]>(
      `select ${API_KEY_COLUMNS} from api_keys where organization_id = ? and revoked_at is null ${environment ? 'and environment = ?' : ''}
        order by id desc`,
      environment ? [organizationId, environment] : [organizationId],
    );
    return rows.map(toApiKey);
  }

  async revoke(tx: Transaction, organizationId: string, id: string, at: Date): Promise<boolean> {
    const rows = await entityManager(tx).execute(
      `update api_keys set revoked_at = ? where id = ? and organization_id = ? and revoked_at is null returning id`,
      [at, id, organizationId],
    );
    // Every process that remembers the key forgets it when this commits.
    if (rows.length === 1) await announceChange(tx, 'api_keys', id);
    return rows.length === 1;
  }
}
