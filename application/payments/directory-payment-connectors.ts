import type { ConnectorAccountDirectory, DirectoryAccount, OpenedConnectorAccount } from '../../domain/ports/connector-account-directory';
import type { PaymentConnectorAccount, PaymentConnectors } from '../../domain/ports/payment-connectors';
import type { TenantScope } from '../../domain/shared/environment';

function toAccount(a: DirectoryAccount): PaymentConnectorAccount {
  return {
    id: a.id,
    name: a.name,
    connectorSlug: a.connectorSlug,
    enabled: a.enabled,
    capabilities: a.capabilities,
    costBasisPoints: a.costBasisPoints,
    createdAt: a.createdAt,
    config: a.config,
  };
}

/** How long a routing listing may serve `open` for the same account (the request that just listed it). */
const LISTING_REUSE_MS = 1_000;

/**
 * Adapts the connector-accounts capability (service `connectorAccounts`) to what the payment pipeline needs.
 * Routing lists the enabled accounts with their credentials (from memory while no account of the environment
 * changed: the directory drops it when a change is announced, so a disabled account stops being routed to at
 * once); opening an account of that listing right after reuses it instead of reading it again.
 */
export class DirectoryPaymentConnectors implements PaymentConnectors {
  private readonly recentlyListed = new Map<string, { at: number; opened: OpenedConnectorAccount }>();

  constructor(private readonly directory: () => ConnectorAccountDirectory) {}

  async accounts(scope: TenantScope): Promise<PaymentConnectorAccount[]> {
    const opened = await this.directory().listEnabledWithCredentials(scope, { kind: 'acquirer' });
    const at = Date.now();
    for (const entry of opened) this.recentlyListed.set(listingKey(scope, entry.account.id), { at, opened: entry });
    if (this.recentlyListed.size > 10_000) this.forgetOld(at);
    return opened.map((entry) => toAccount(entry.account));
  }

  async open(scope: TenantScope, accountId: string) {
    const recent = this.recentlyListed.get(listingKey(scope, accountId));
    const opened = recent && Date.now() - recent.at < LISTING_REUSE_MS ? recent.opened : await this.directory().open(scope, accountId);
    if (!opened || opened.account.kind !== 'acquirer') return null;
    let gateway;
    try {
      gateway = this.directory().acquirerGateway(opened.account.connectorSlug);
    } catch {
      return null; // the account's adapter is not configured in this installation
    }
    return { account: toAccount(opened.account), gateway, credentials: opened.credentials };
  }

  async openAntifraud(scope: TenantScope, accountId: string) {
    const opened = await this.directory().open(scope, accountId);
    if (!opened || opened.account.kind !== 'antifraud') return null;
    let gateway;
    try {
      gateway = this.directory().antifraudGateway(opened.account.connectorSlug);
    } catch {
      return null; // the account's adapter is not configured in this installation
    }
    return { account: { id: opened.account.id, connectorSlug: opened.account.connectorSlug, enabled: opened.account.enabled }, gateway, credentials: opened.credentials };
  }

  private forgetOld(now: number): void {
    for (const [key, entry] of this.recentlyListed) if (now - entry.at >= LISTING_REUSE_MS) this.recentlyListed.delete(key);
  }
}

function listingKey(scope: TenantScope, accountId: string): string {
  return `${scope.organizationId}:${scope.environment}:${accountId}`;
}
