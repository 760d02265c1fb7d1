import type { ConnectorAccountDirectory, DirectoryAccount } from '../../domain/ports/connector-account-directory';
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

/** Adapts the connector-accounts capability (service `connectorAccounts`) to what the payment pipeline needs. */
export class DirectoryPaymentConnectors implements PaymentConnectors {
  constructor(private readonly directory: () => ConnectorAccountDirectory) {}

  async accounts(scope: TenantScope): Promise<PaymentConnectorAccount[]> {
    const accounts = await this.directory().list(scope, { kind: 'acquirer' });
    return accounts.map(toAccount);
  }

  async open(scope: TenantScope, accountId: string) {
    const opened = await this.directory().open(scope, accountId);
    if (!opened || opened.account.kind !== 'acquirer') return null;
    let gateway;
    try {
      gateway = this.directory().acquirerGateway(opened.account.connectorSlug);
    } catch {
      return null; // the account's adapter is not configured in this installation
    }
    return { account: toAccount(opened.account), gateway, credentials: opened.credentials };
  }
}
