import { expect } from 'chai';
import chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { CreateConnectorAccount, type CreateConnectorAccountInput } from '../../../../application/connector-account/create-connector-account';
import { GetConnectorAccount, ListConnectorAccounts } from '../../../../application/connector-account/read-connector-accounts';
import type { TenantScope } from '../../../../domain/shared/environment';
import { FAKE_SANDBOX, connectorAccountDeps } from '../../../support/connector-account-fakes';

chai.use(chaiAsPromised);

const sandbox: TenantScope = { organizationId: 'org_1', environment: 'sandbox' };
const otherOrg: TenantScope = { organizationId: 'org_2', environment: 'sandbox' };
const live: TenantScope = { organizationId: 'org_1', environment: 'live' };

/** Accounts created through the real use case, so reads see what a merchant would have stored. */
async function withAccounts() {
  const setup = connectorAccountDeps();
  const antifraud = { ...FAKE_SANDBOX, slug: 'clearsale', name: 'ClearSale', kind: 'antifraud' as const, capabilities: ['fraud_analysis'] };
  setup.catalog.entries = [FAKE_SANDBOX, antifraud];
  const create = (scope: TenantScope, overrides: Partial<CreateConnectorAccountInput> = {}) =>
    new CreateConnectorAccount(setup.deps).execute({
      scope,
      connectorSlug: 'sandbox',
      name: 'Main',
      credentials: { merchantId: 'merchant-1234', apiKey: 'secret-key-value' },
      config: {},
      costBasisPoints: null,
      enabled: true,
      verify: false,
      ...overrides,
    });
  const card = await create(sandbox, { name: 'Card' });
  const fraud = await create(sandbox, { name: 'Fraud', connectorSlug: 'clearsale' });
  const foreign = await create(otherOrg, { name: 'Other org' });
  return { ...setup, card, fraud, foreign, list: new ListConnectorAccounts(setup.deps), get: new GetConnectorAccount(setup.deps) };
}

describe('ListConnectorAccounts and GetConnectorAccount (reads of connector accounts)', () => {
  it('lists only the accounts of the caller organization and environment', async () => {
    const { list } = await withAccounts();
    expect((await list.execute(sandbox)).map((v) => v.name)).to.deep.equal(['Card', 'Fraud']);
    expect(await list.execute(live)).to.deep.equal([]);
  });

  it('capability filters on effective capabilities', async () => {
    const { list } = await withAccounts();
    expect((await list.execute(sandbox, { capability: 'pix' })).map((v) => v.name)).to.deep.equal(['Card']);
    expect((await list.execute(sandbox, { capability: 'fraud_analysis' })).map((v) => v.name)).to.deep.equal(['Fraud']);
  });

  it('an account whose adapter is down keeps listing, with no effective capability (so no capability filter matches it)', async () => {
    const { list, catalog } = await withAccounts();
    catalog.adapterDown();
    const views = await list.execute(sandbox);
    expect(views.map((v) => [v.name, v.connectorName, v.effectiveCapabilities])).to.deep.equal([['Card', null, []], ['Fraud', null, []]]);
    expect(await list.execute(sandbox, { capability: 'card' })).to.deep.equal([]);
  });

  it('never returns a credential value: secret fields say only filled, others a masked preview', async () => {
    const { get, card } = await withAccounts();
    const view = await get.execute(sandbox, card.id);
    expect(view.credentials).to.deep.equal({ apiKey: { filled: true }, merchantId: { filled: true, preview: '••••1234' } });
    expect(JSON.stringify(view)).not.to.include('secret-key-value');
    expect(JSON.stringify(view)).not.to.include('merchant-1234');
  });

  it('reads one account with the flows citing it', async () => {
    const { get, card, usage } = await withAccounts();
    usage.current = { publishedFlowsUsing: async (_tx, _scope, ids) => new Map(ids.filter((id) => id === card.id).map((id) => [id, [{ id: 'flw_1', name: 'Default' }]])) };
    expect((await get.execute(sandbox, card.id)).usedByFlows).to.deep.equal([{ id: 'flw_1', name: 'Default' }]);
  });

  it('an account of another organization or environment is not_found', async () => {
    const { get, foreign, card } = await withAccounts();
    await expect(get.execute(sandbox, foreign.id)).to.be.rejected.and.eventually.include({ code: 'not_found' });
    await expect(get.execute(live, card.id)).to.be.rejected.and.eventually.include({ code: 'not_found' });
  });
});
