import { NotFoundError } from '../../domain/shared/domain-error';
import type { ConnectorAccountDeps } from './connector-account-deps';
import { buildViews, descriptionsBySlug, type ConnectorAccountView } from './connector-account-view';
import { usableConnector } from './connector-validation';
import { runVerification } from './run-verification';
import type { TenantScope } from '../../domain/shared/environment';

export interface VerificationView {
  readonly object: 'connector_verification';
  readonly connectorSlug: string;
  readonly connectorAccountId: string | null;
  readonly result: 'valid' | 'invalid' | 'unreachable';
  readonly message: string;
  readonly verifiedAt: string;
  readonly health?: ConnectorAccountView['health'];
}

/**
 * POST /v1/connectors/{slug}/verify: a light call to the partner with credentials that are not saved. Credentials
 * that do not even match the connector's schema are answered `invalid` without calling the partner.
 */
export class VerifyConnectorCredentials {
  constructor(private readonly deps: ConnectorAccountDeps) {}

  async execute(slug: string, credentials: Record<string, string>, config: Record<string, unknown>): Promise<VerificationView> {
    const found = await this.deps.catalog.find(slug);
    if (!found) throw new NotFoundError('connector', slug);
    const description = await usableConnector(this.deps, slug, 'path.slug');
    const violations = [
      ...this.deps.validator.validate(description.credentialSchema, credentials, 'credentials'),
      ...this.deps.validator.validate(description.configSchema, config, 'config'),
    ];
    const outcome =
      violations.length > 0
        ? { result: 'invalid' as const, message: violations.map((v) => `${v.param}: ${v.message}`).join('; '), verifiedAt: this.deps.clock.now() }
        : await runVerification(this.deps, slug, { values: credentials, config });
    return {
      object: 'connector_verification',
      connectorSlug: slug,
      connectorAccountId: null,
      result: outcome.result,
      message: outcome.message,
      verifiedAt: outcome.verifiedAt.toISOString(),
    };
  }
}

/** POST /v1/connector-accounts/{id}/verify: tests the stored credentials and records the result in the health. */
export class VerifyConnectorAccount {
  constructor(private readonly deps: ConnectorAccountDeps) {}

  async execute(scope: TenantScope, id: string): Promise<VerificationView> {
    const { deps } = this;
    const account = await deps.transactor.read((tx) => deps.accounts.findById(tx, scope, id));
    if (!account) throw new NotFoundError('connector account', id);
    const outcome = await runVerification(deps, account.state.connectorSlug, {
      values: account.state.credentials,
      config: account.state.config,
    });
    const descriptions = await descriptionsBySlug(deps);
    const view = await deps.transactor.run(async (tx) => {
      await deps.accounts.recordVerification(tx, id, { result: outcome.result, message: outcome.message, at: outcome.verifiedAt });
      const [v] = await buildViews(deps, tx, [account], descriptions);
      return v!;
    });
    return {
      object: 'connector_verification',
      connectorSlug: account.state.connectorSlug,
      connectorAccountId: id,
      result: outcome.result,
      message: outcome.message,
      verifiedAt: outcome.verifiedAt.toISOString(),
      health: view.health,
    };
  }
}
