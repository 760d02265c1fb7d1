import type { ConnectorAccount } from '../connector-account/connector-account';
import type { CallRecord, HealthHistory, VerificationRecord } from '../connector-account/connector-account-health';
import type { TenantScope } from '../shared/environment';
import type { Transaction } from './transactor';

/**
 * Stores connector accounts (credentials sealed by a CredentialCipher inside the implementation) and their
 * health history. Every read is scoped by organization and environment; deleted accounts are not found.
 */
export interface ConnectorAccountRepository {
  insert(tx: Transaction, account: ConnectorAccount): Promise<void>;
  update(tx: Transaction, account: ConnectorAccount): Promise<void>;
  /** `forUpdate` locks the row until the transaction ends (concurrent PATCHes serialize). */
  findById(tx: Transaction, scope: TenantScope, id: string, options?: { forUpdate?: boolean }): Promise<ConnectorAccount | null>;
  /** Oldest first. */
  list(tx: Transaction, scope: TenantScope): Promise<ConnectorAccount[]>;
  /** For inbound notices, which carry no tenant: the account whose id and webhook token both match. */
  findByWebhookToken(tx: Transaction, id: string, token: string): Promise<ConnectorAccount | null>;

  recordVerification(tx: Transaction, accountId: string, record: VerificationRecord): Promise<void>;
  /** Records a call outcome for an account of this scope (nothing when the account is not the scope's). */
  recordCall(tx: Transaction, scope: TenantScope, accountId: string, record: CallRecord): Promise<void>;
  clearHealth(tx: Transaction, accountId: string): Promise<void>;
  healthOf(tx: Transaction, accountIds: readonly string[]): Promise<Map<string, HealthHistory>>;
}
