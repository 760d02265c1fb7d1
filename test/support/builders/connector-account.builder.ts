import { ConnectorAccount } from '../../../domain/connector-account/connector-account';
import type { TenantScope } from '../../../domain/shared/environment';

/** An enabled sandbox acquirer account of the scope, its credentials and notice token derived from its id. */
export function sandboxAccount(id: string, scope: TenantScope): ConnectorAccount {
  return ConnectorAccount.create({
    id,
    scope,
    connectorSlug: 'sandbox',
    kind: 'acquirer',
    name: id,
    credentials: { merchantId: `m-${id}`, apiKey: `k-${id}` },
    config: {},
    costBasisPoints: null,
    enabled: true,
    webhookToken: `tok-${id}`,
    now: new Date('2026-11-22T10:00:00.000Z'),
  });
}
