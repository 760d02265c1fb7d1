import type { RoutableAccount } from '../payment/routing/direct-routing';
import type { TenantScope } from '../shared/environment';
import type { AcquirerGateway } from './acquirer-gateway';
import type { AntifraudGateway } from './antifraud-gateway';
import type { ConnectorCredentials } from './connector-description';

export interface PaymentConnectorAccount extends RoutableAccount {
  readonly name: string;
  /** The account's connector configuration (e.g. `preAuthorizationExpiryAction`: notify | capture | void). */
  readonly config?: Readonly<Record<string, unknown>>;
}

/**
 * What the payment pipeline needs from connector accounts: the environment's acquirer accounts (for routing)
 * and, for one account, its decrypted credentials with the gateway of its connector. Implemented over the
 * connector-accounts capability by an adapter on the payments side.
 */
export interface PaymentConnectors {
  /** Acquirer accounts of the tenant's environment, enabled or not, with effective capabilities. */
  accounts(scope: TenantScope): Promise<PaymentConnectorAccount[]>;
  /** Credentials and gateway of one account of the tenant; null when it does not exist (or is of another environment). */
  open(scope: TenantScope, accountId: string): Promise<{ account: PaymentConnectorAccount; gateway: AcquirerGateway; credentials: ConnectorCredentials } | null>;
  /**
   * Credentials and gateway of one antifraud account of the tenant (a flow's antifraud node); null when it does not
   * exist, is of another environment, is not an antifraud account or has no adapter here. Absent: no antifraud here.
   */
  openAntifraud?(scope: TenantScope, accountId: string): Promise<{ account: { readonly id: string; readonly connectorSlug: string; readonly enabled: boolean }; gateway: AntifraudGateway; credentials: ConnectorCredentials } | null>;
}
