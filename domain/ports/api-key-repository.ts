import type { ApiKey } from '../api-key/api-key';
import type { Environment } from '../shared/environment';
import type { Transaction } from './transactor';

/** API keys at rest (hashed). Lookups by hash serve authentication; the rest is scoped by organization. */
export interface ApiKeyRepository {
  insert(tx: Transaction, key: ApiKey): Promise<void>;
  findActiveByHash(tx: Transaction, secretHash: string): Promise<ApiKey | null>;
  listByOrganization(tx: Transaction, organizationId: string, environment?: Environment): Promise<ApiKey[]>;
  revoke(tx: Transaction, organizationId: string, id: string, at: Date): Promise<boolean>;
}
