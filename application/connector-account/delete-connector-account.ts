import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { ConnectorAccountDeps } from './connector-account-deps';

/**
 * DELETE /v1/connector-accounts/{id}: refused while a published flow cites the account (disable it to take a
 * partner offline at once). The row is kept, marked deleted, so past payments still name their account.
 */
export class DeleteConnectorAccount {
  constructor(private readonly deps: ConnectorAccountDeps) {}

  async execute(scope: TenantScope, id: string): Promise<{ object: 'connector_account'; id: string; deleted: true }> {
    const { deps } = this;
    await deps.transactor.run(async (tx) => {
      const account = await deps.accounts.findById(tx, scope, id, { forUpdate: true });
      if (!account) throw new NotFoundError('connector account', id);
      // Checked under the row lock: a publish citing the account holds it shared until it commits, so it is seen.
      const flows = (await deps.usage()?.publishedFlowsUsing(tx, scope, [id]))?.get(id) ?? [];
      if (flows.length > 0) {
        throw new DomainError(
          'connector_account_in_use',
          `The account is used by published flows (${flows.map((f) => f.id).join(', ')}); disable it instead, or publish flows without it first.`,
          { flows },
        );
      }
      account.markDeleted(deps.clock.now());
      await deps.accounts.update(tx, account);
    });
    return { object: 'connector_account', id, deleted: true };
  }
}
