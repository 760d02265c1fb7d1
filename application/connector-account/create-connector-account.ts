import { ConnectorAccount, assertConnectorAllowed } from '../../domain/connector-account/connector-account';
import { DomainError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { ConnectorAccountDeps } from './connector-account-deps';
import { buildViews, descriptionsBySlug, type ConnectorAccountView } from './connector-account-view';
import { assertMatchesSchemas, usableConnector } from './connector-validation';
import { runVerification } from './run-verification';

export interface CreateConnectorAccountInput {
  readonly scope: TenantScope;
  readonly connectorSlug: string;
  readonly name: string;
  readonly credentials: Record<string, string>;
  readonly config: Record<string, unknown>;
  readonly costBasisPoints: number | null;
  readonly enabled: boolean;
  readonly verify: boolean;
}

/**
 * POST /v1/connector-accounts. Credentials are validated against the connector's schema and stored sealed.
 * With verify, the partner is asked first (outside any transaction) and nothing is saved unless it says valid.
 */
export class CreateConnectorAccount {
  constructor(private readonly deps: ConnectorAccountDeps) {}

  async execute(input: CreateConnectorAccountInput): Promise<ConnectorAccountView> {
    const { deps } = this;
    assertConnectorAllowed(input.connectorSlug, input.scope.environment, deps.deployment);
    const description = await usableConnector(deps, input.connectorSlug, 'body.connectorSlug');
    assertMatchesSchemas(deps, description, input.credentials, input.config);

    const verification = input.verify
      ? await runVerification(deps, description.slug, { values: input.credentials, config: input.config })
      : null;
    if (verification && verification.result !== 'valid') {
      throw new DomainError('connector_verification_failed', `Credentials not saved: ${verification.message}`, {
        param: 'body.credentials',
        result: verification.result,
      });
    }

    const now = deps.clock.now();
    const account = ConnectorAccount.create({
      id: deps.ids.next('ca_'),
      scope: input.scope,
      connectorSlug: description.slug,
      kind: description.kind,
      name: input.name,
      credentials: input.credentials,
      config: input.config,
      costBasisPoints: input.costBasisPoints,
      enabled: input.enabled,
      webhookToken: Buffer.from(deps.random.bytes(24)).toString('base64url'),
      now,
    });
    const descriptions = await descriptionsBySlug(deps);
    return deps.transactor.run(async (tx) => {
      await deps.accounts.insert(tx, account);
      if (verification) {
        await deps.accounts.recordVerification(tx, account.id, { result: verification.result, message: verification.message, at: verification.verifiedAt });
      }
      const [view] = await buildViews(deps, tx, [account], descriptions);
      return view!;
    });
  }
}
