import type { ConnectorAccount } from '../../domain/connector-account/connector-account';
import { summarizeHealth, type HealthHistory, type HealthSummary } from '../../domain/connector-account/connector-account-health';
import { credentialFieldViews, type CredentialFieldView } from '../../domain/connector-account/credential-fields';
import type { ConnectorDescription } from '../../domain/ports/connector-description';
import type { Transaction } from '../../domain/ports/transactor';
import type { ConnectorAccountDeps } from './connector-account-deps';

/** The public read of an account: never a credential value, only whether each field is filled. */
export interface ConnectorAccountView {
  readonly object: 'connector_account';
  readonly id: string;
  readonly connectorSlug: string;
  readonly connectorName: string | null;
  readonly kind: string;
  readonly name: string;
  readonly environment: string;
  readonly enabled: boolean;
  readonly costBasisPoints: number | null;
  readonly config: Record<string, unknown>;
  readonly credentials: Record<string, CredentialFieldView>;
  readonly effectiveCapabilities: string[];
  readonly usedByFlows: Array<{ id: string; name: string }>;
  readonly webhookUrl: string;
  readonly health: HealthSummary;
  readonly createdAt: string;
  readonly updatedAt: string;
}

const EMPTY_HISTORY: HealthHistory = { lastVerification: null, recentCalls: [] };

export function webhookUrlOf(publicBaseUrl: string, account: ConnectorAccount): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/v1/connector-webhooks/${account.id}/${account.state.webhookToken}`;
}

/** An account's capabilities are its connector's, as long as the adapter is configured and available. */
export function effectiveCapabilities(description: ConnectorDescription | undefined): string[] {
  return description?.available ? [...description.capabilities] : [];
}

export async function descriptionsBySlug(deps: ConnectorAccountDeps): Promise<Map<string, ConnectorDescription>> {
  return new Map((await deps.catalog.list()).map((d) => [d.slug, d]));
}

export async function buildViews(
  deps: ConnectorAccountDeps,
  tx: Transaction,
  accounts: readonly ConnectorAccount[],
  descriptions: Map<string, ConnectorDescription>,
): Promise<ConnectorAccountView[]> {
  const ids = accounts.map((a) => a.id);
  const histories = await deps.accounts.healthOf(tx, ids);
  const usage = deps.usage();
  const flows = usage && accounts.length ? await usage.publishedFlowsUsing(tx, accounts[0]!.scope, ids) : new Map<string, Array<{ id: string; name: string }>>();
  return accounts.map((account) => {
    const s = account.state;
    const description = descriptions.get(s.connectorSlug);
    const usedByFlows = flows.get(s.id) ?? [];
    return {
      object: 'connector_account' as const,
      id: s.id,
      connectorSlug: s.connectorSlug,
      connectorName: description?.name ?? null,
      kind: s.kind,
      name: s.name,
      environment: s.environment,
      enabled: s.enabled,
      costBasisPoints: s.costBasisPoints,
      config: { ...s.config },
      credentials: credentialFieldViews(description?.credentialSchema ?? {}, s.credentials),
      effectiveCapabilities: effectiveCapabilities(description),
      usedByFlows,
      webhookUrl: webhookUrlOf(deps.publicBaseUrl, account),
      health: summarizeHealth(histories.get(s.id) ?? EMPTY_HISTORY),
      createdAt: s.createdAt.toISOString(),
      updatedAt: s.updatedAt.toISOString(),
    };
  });
}
