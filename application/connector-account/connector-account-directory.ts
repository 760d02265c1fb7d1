import type { ConnectorAccount } from '../../domain/connector-account/connector-account';
import type { AcquirerGateway, SandboxChargeSimulator } from '../../domain/ports/acquirer-gateway';
import type { AntifraudGateway } from '../../domain/ports/antifraud-gateway';
import type {
  ConnectorAccountDirectory,
  DirectoryAccount,
  OpenedConnectorAccount,
} from '../../domain/ports/connector-account-directory';
import type { ConnectorDescription, ConnectorKind } from '../../domain/ports/connector-description';
import type { CallOutcome } from '../../domain/connector-account/connector-account-health';
import type { TenantScope } from '../../domain/shared/environment';
import type { ConnectorAccountDeps } from './connector-account-deps';
import { descriptionsBySlug, effectiveCapabilities } from './connector-account-view';
import type { Transaction } from '../../domain/ports/transactor';
import { ChangeAwareCache } from '../shared/change-aware-cache';
import { tenantChangeKey } from '../../domain/ports/change-feed';

/** The connector-accounts capability as other use cases consume it (see the port's TSDoc). */
export class ConnectorAccountDirectoryService implements ConnectorAccountDirectory {
  /** Routing's reads (every payment lists its environment's accounts), by `organizationId:environment`. */
  private readonly routingMemory: ChangeAwareCache<ConnectorAccount[]> | null;

  constructor(private readonly deps: ConnectorAccountDeps) {
    this.routingMemory = deps.changes ? new ChangeAwareCache<ConnectorAccount[]>(deps.changes, 'connector_accounts', { clock: deps.clock }) : null;
  }

  private toDirectory(account: ConnectorAccount, descriptions: Map<string, ConnectorDescription>): DirectoryAccount {
    const s = account.state;
    return {
      id: s.id,
      connectorSlug: s.connectorSlug,
      kind: s.kind,
      name: s.name,
      enabled: s.enabled,
      capabilities: effectiveCapabilities(descriptions.get(s.connectorSlug)),
      costBasisPoints: s.costBasisPoints,
      config: { ...s.config },
      createdAt: s.createdAt,
    };
  }

  private opened(account: ConnectorAccount, descriptions: Map<string, ConnectorDescription>): OpenedConnectorAccount {
    return {
      account: this.toDirectory(account, descriptions),
      credentials: { values: { ...account.state.credentials }, config: { ...account.state.config } },
    };
  }

  private async load(scope: TenantScope): Promise<{ accounts: ConnectorAccount[]; descriptions: Map<string, ConnectorDescription> }> {
    const [accounts, descriptions] = await Promise.all([
      this.deps.transactor.read((tx) => this.deps.accounts.list(tx, scope)),
      descriptionsBySlug(this.deps),
    ]);
    return { accounts, descriptions };
  }

  async list(
    scope: TenantScope,
    filter: { kind?: ConnectorKind; capability?: string; enabledOnly?: boolean } = {},
  ): Promise<DirectoryAccount[]> {
    const { accounts, descriptions } = await this.load(scope);
    return accounts
      .map((a) => this.toDirectory(a, descriptions))
      .filter(
        (a) =>
          (filter.kind === undefined || a.kind === filter.kind) &&
          (filter.capability === undefined || a.capabilities.includes(filter.capability)) &&
          (!filter.enabledOnly || a.enabled),
      );
  }

  /** Served from memory while no account of the environment changed (see ChangeAwareCache); capabilities stay live. */
  async listEnabledWithCredentials(
    scope: TenantScope,
    filter: { kind?: ConnectorKind; capability?: string } = {},
  ): Promise<OpenedConnectorAccount[]> {
    const read = () => this.deps.transactor.read((tx) => this.deps.accounts.list(tx, scope));
    const [accounts, descriptions] = await Promise.all([
      this.routingMemory ? this.routingMemory.get(tenantChangeKey(scope), read) : read(),
      descriptionsBySlug(this.deps),
    ]);
    return accounts
      .map((a) => this.opened(a, descriptions))
      .filter(
        ({ account: a }) =>
          a.enabled &&
          (filter.kind === undefined || a.kind === filter.kind) &&
          (filter.capability === undefined || a.capabilities.includes(filter.capability)),
      );
  }

  async open(scope: TenantScope, accountId: string): Promise<OpenedConnectorAccount | null> {
    const [account, descriptions] = await Promise.all([
      this.deps.transactor.read((tx) => this.deps.accounts.findById(tx, scope, accountId)),
      descriptionsBySlug(this.deps),
    ]);
    return account ? this.opened(account, descriptions) : null;
  }

  async findByWebhookToken(accountId: string, token: string): Promise<(OpenedConnectorAccount & { scope: TenantScope }) | null> {
    const [account, descriptions] = await Promise.all([
      this.deps.transactor.read((tx) => this.deps.accounts.findByWebhookToken(tx, accountId, token)),
      descriptionsBySlug(this.deps),
    ]);
    return account ? { ...this.opened(account, descriptions), scope: account.scope } : null;
  }

  acquirerGateway(connectorSlug: string): AcquirerGateway {
    return this.deps.catalog.acquirer(connectorSlug);
  }

  antifraudGateway(connectorSlug: string): AntifraudGateway {
    return this.deps.catalog.antifraud(connectorSlug);
  }

  sandboxSimulator(connectorSlug: string): SandboxChargeSimulator {
    return this.deps.catalog.sandboxSimulator(connectorSlug);
  }

  /** One connector call, queued in the caller's unit of work (the one recording the call's outcome). */
  async recordCallOutcome(
    tx: Transaction,
    scope: TenantScope,
    accountId: string,
    call: { operation: string; outcome: CallOutcome; latencyMs?: number | null },
  ): Promise<void> {
    await this.deps.accounts.recordCall(tx, scope, accountId, {
      operation: call.operation,
      outcome: call.outcome,
      latencyMs: call.latencyMs ?? null,
      at: this.deps.clock.now(),
    });
  }

}
