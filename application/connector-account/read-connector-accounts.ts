import { NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { ConnectorAccountDeps } from './connector-account-deps';
import { buildViews, descriptionsBySlug, type ConnectorAccountView } from './connector-account-view';

/** GET /v1/connector-accounts: the environment's accounts; `capability` filters on effectiveCapabilities. */
export class ListConnectorAccounts {
  constructor(private readonly deps: ConnectorAccountDeps) {}

  async execute(scope: TenantScope, filter: { capability?: string } = {}): Promise<ConnectorAccountView[]> {
    const descriptions = await descriptionsBySlug(this.deps);
    const views = await this.deps.transactor.read(async (tx) =>
      buildViews(this.deps, tx, await this.deps.accounts.list(tx, scope), descriptions),
    );
    return filter.capability === undefined ? views : views.filter((v) => v.effectiveCapabilities.includes(filter.capability!));
  }
}

/** GET /v1/connector-accounts/{id}: an account of another environment (or organization) is not found. */
export class GetConnectorAccount {
  constructor(private readonly deps: ConnectorAccountDeps) {}

  async execute(scope: TenantScope, id: string): Promise<ConnectorAccountView> {
    const descriptions = await descriptionsBySlug(this.deps);
    return this.deps.transactor.read(async (tx) => {
      const account = await this.deps.accounts.findById(tx, scope, id);
      if (!account) throw new NotFoundError('connector account', id);
      const [view] = await buildViews(this.deps, tx, [account], descriptions);
      return view!;
    });
  }
}
