import type { CallOutcome } from '../connector-account/connector-account-health';
import type { TenantScope } from '../shared/environment';
import type { AcquirerGateway, SandboxChargeSimulator } from './acquirer-gateway';
import type { AntifraudGateway } from './antifraud-gateway';
import type { ConnectorCredentials, ConnectorKind } from './connector-description';
import type { Transaction } from './transactor';

/** A connector account as other capabilities (routing, flows, checkout) see it: no secrets unless opened. */
export interface DirectoryAccount {
  readonly id: string;
  readonly connectorSlug: string;
  readonly kind: ConnectorKind;
  readonly name: string;
  readonly enabled: boolean;
  /** What the account can do now: its connector's capabilities ([] when the adapter is not configured). */
  readonly capabilities: readonly string[];
  /** null: unknown cost (ranked after priced accounts). */
  readonly costBasisPoints: number | null;
  readonly config: Readonly<Record<string, unknown>>;
  readonly createdAt: Date;
}

export interface OpenedConnectorAccount {
  readonly account: DirectoryAccount;
  /** Decrypted for this use only: pass to the gateway, never log or persist. */
  readonly credentials: ConnectorCredentials;
}

/**
 * The connector-accounts capability as the rest of the application uses it (service name `connectorAccounts`).
 * Every method is scoped by tenant (organization + environment) except the inbound-notice lookup, which is
 * authenticated by the account's webhook token instead.
 */
export interface ConnectorAccountDirectory {
  /** Accounts of the environment, oldest first; filters: kind, capability (effective), enabled only. */
  list(scope: TenantScope, filter?: { kind?: ConnectorKind; capability?: string; enabledOnly?: boolean }): Promise<DirectoryAccount[]>;
  /** Enabled accounts with decrypted credentials, for routing (same filters as list). */
  listEnabledWithCredentials(scope: TenantScope, filter?: { kind?: ConnectorKind; capability?: string }): Promise<OpenedConnectorAccount[]>;
  /** One account with decrypted credentials, enabled or not; null when absent or of another environment. */
  open(scope: TenantScope, accountId: string): Promise<OpenedConnectorAccount | null>;
  /** Inbound notices: the account whose id and webhook token match, with its tenant; null otherwise. */
  findByWebhookToken(accountId: string, token: string): Promise<(OpenedConnectorAccount & { scope: TenantScope }) | null>;
  /** The gateway of the account's acquirer adapter (throws when the connector is not a configured acquirer). */
  acquirerGateway(connectorSlug: string): AcquirerGateway;
  /** The gateway of the account's antifraud adapter. */
  antifraudGateway(connectorSlug: string): AntifraudGateway;
  /** Sandbox only: the bank simulation of the service's sandbox acquirer (POST /v1/payments/{id}/simulate). */
  sandboxSimulator(connectorSlug: string): SandboxChargeSimulator;
  /** Feeds the account's displayed health with one connector call, queued in the unit recording its outcome. */
  recordCallOutcome(
    tx: Transaction,
    scope: TenantScope,
    accountId: string,
    call: { operation: string; outcome: CallOutcome; latencyMs?: number | null },
  ): Promise<void>;
}
