import type { ConnectorAccountChanges } from '../../domain/connector-account/connector-account';
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { ConnectorAccountDeps } from './connector-account-deps';
import { buildViews, descriptionsBySlug, type ConnectorAccountView } from './connector-account-view';
import { assertMatchesSchemas } from './connector-validation';

/**
 * PATCH /v1/connector-accounts/{id}, with the spec's merge rules: an omitted or empty credential keeps its
 * value, config merges (null resets a key to its default), the merged result is validated against the
 * connector's schemas, and a changed credential clears the account's health history.
 */
export class UpdateConnectorAccount {
  constructor(private readonly deps: ConnectorAccountDeps) {}

  async execute(scope: TenantScope, id: string, changes: ConnectorAccountChanges): Promise<ConnectorAccountView> {
    const { deps } = this;
    // The schemas come from the adapter (a gRPC call), so they are fetched before the transaction opens.
    const existing = await deps.transactor.read((tx) => deps.accounts.findById(tx, scope, id));
    if (!existing) throw new NotFoundError('connector account', id);
    const descriptions = await descriptionsBySlug(deps);
    const description = descriptions.get(existing.state.connectorSlug);
    const touchesSchemas = changes.credentials !== undefined || changes.config !== undefined;
    if (touchesSchemas && !description) {
      throw new DomainError('connector_unavailable', 'The connector is not reachable right now; credentials and config cannot be validated.');
    }

    return deps.transactor.run(async (tx) => {
      const account = await deps.accounts.findById(tx, scope, id, { forUpdate: true });
      if (!account) throw new NotFoundError('connector account', id);
      if (touchesSchemas && description) {
        const merged = account.preview(changes);
        assertMatchesSchemas(deps, description, merged.credentials, merged.config);
      }
      const { credentialsChanged } = account.apply(changes, deps.clock.now());
      await deps.accounts.update(tx, account);
      if (credentialsChanged) await deps.accounts.clearHealth(tx, account.id);
      const [view] = await buildViews(deps, tx, [account], descriptions);
      return view!;
    });
  }
}
