import { expect } from 'chai';
import chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { ConnectorAccountDirectoryService } from '../../../../application/connector-account/connector-account-directory';
import { CreateConnectorAccount, type CreateConnectorAccountInput } from '../../../../application/connector-account/create-connector-account';
import { DeleteConnectorAccount } from '../../../../application/connector-account/delete-connector-account';
import { UpdateConnectorAccount } from '../../../../application/connector-account/update-connector-account';
import { VerifyConnectorCredentials } from '../../../../application/connector-account/verify-connector-credentials';
import { ConnectorFailure } from '../../../../domain/shared/connector-failure';
import { connectorAccountDeps } from '../../../support/connector-account-fakes';

chai.use(chaiAsPromised);

const scope = { organizationId: 'org_1', environment: 'sandbox' as const };
const input = (overrides: Partial<CreateConnectorAccountInput> = {}): CreateConnectorAccountInput => ({
  scope,
  connectorSlug: 'sandbox',
  name: 'Main',
  credentials: { merchantId: 'merchant-1', apiKey: 'secret-key' },
  config: {},
  costBasisPoints: null,
  enabled: true,
  verify: false,
  ...overrides,
});

describe('connector account use cases (fakes, no I/O)', () => {
  describe('create', () => {
    it('with verify, saves nothing when the partner refuses', async () => {
      const { deps, accounts, catalog } = connectorAccountDeps();
      catalog.nextVerification = { result: 'invalid', message: 'refused' };
      await expect(new CreateConnectorAccount(deps).execute(input({ verify: true })))
        .to.be.rejected.and.eventually.include({ code: 'connector_verification_failed' });
      expect(accounts.rows.size).to.equal(0);
      expect(catalog.verifications).to.have.length(1);
    });

    it('with verify, a connector failure reads as unreachable and saves nothing', async () => {
      const { deps, accounts, catalog } = connectorAccountDeps();
      catalog.nextVerification = new ConnectorFailure('timeout', 'late', { outcomeUnknown: true });
      const error = await new CreateConnectorAccount(deps).execute(input({ verify: true })).catch((e: { meta: unknown }) => e);
      expect(error).to.have.nested.property('meta.result', 'unreachable');
      expect(accounts.rows.size).to.equal(0);
    });

    it('with verify, records the valid verification with the account', async () => {
      const { deps, accounts } = connectorAccountDeps();
      const view = await new CreateConnectorAccount(deps).execute(input({ verify: true }));
      expect(accounts.hasVerification(view.id)).to.equal(true);
      expect(view.health.status).to.equal('healthy');
      expect(view.webhookUrl).to.equal(`https://api.example.com/v1/connector-webhooks/${view.id}/${Buffer.alloc(24, 7).toString('base64url')}`);
    });

    it('without verify never calls the partner', async () => {
      const { deps, catalog } = connectorAccountDeps();
      await new CreateConnectorAccount(deps).execute(input());
      expect(catalog.verifications).to.have.length(0);
    });

    it('refuses a live sandbox account in production before calling the partner', async () => {
      const { deps, catalog } = connectorAccountDeps({ deployment: 'production' });
      await expect(new CreateConnectorAccount(deps).execute(input({ scope: { ...scope, environment: 'live' }, verify: true })))
        .to.be.rejected.and.eventually.include({ code: 'connector_not_allowed_in_environment' });
      expect(catalog.verifications).to.have.length(0);
    });
  });

  describe('update', () => {
    it('clears the health history only when a credential value changes', async () => {
      const { deps, accounts } = connectorAccountDeps();
      const created = await new CreateConnectorAccount(deps).execute(input({ verify: true }));
      const update = new UpdateConnectorAccount(deps);
      await update.execute(scope, created.id, { name: 'Renamed', credentials: { apiKey: '' } });
      expect(accounts.hasVerification(created.id)).to.equal(true);
      await update.execute(scope, created.id, { credentials: { apiKey: 'rotated' } });
      expect(accounts.hasVerification(created.id)).to.equal(false);
    });

    it('needs the adapter to change credentials or config, not to rename', async () => {
      const { deps, catalog } = connectorAccountDeps();
      const created = await new CreateConnectorAccount(deps).execute(input());
      catalog.adapterDown();
      const update = new UpdateConnectorAccount(deps);
      await expect(update.execute(scope, created.id, { credentials: { apiKey: 'x' } }))
        .to.be.rejected.and.eventually.include({ code: 'connector_unavailable' });
      const renamed = await update.execute(scope, created.id, { name: 'Still here' });
      expect(renamed.name).to.equal('Still here');
      expect(renamed.effectiveCapabilities, 'no adapter, no capabilities').to.deep.equal([]);
    });
  });

  describe('delete', () => {
    it('is refused while a published flow cites the account', async () => {
      const { deps, accounts, usage } = connectorAccountDeps();
      const created = await new CreateConnectorAccount(deps).execute(input());
      usage.current = { publishedFlowsUsing: async (_tx, _scope, ids) => new Map(ids.map((id) => [id, [{ id: 'flow_1', name: 'Main flow' }]])) };
      await expect(new DeleteConnectorAccount(deps).execute(scope, created.id))
        .to.be.rejected.and.eventually.include({ code: 'connector_account_in_use' });
      expect(accounts.rows.get(created.id)!.state.deletedAt).to.equal(null);
      usage.current = undefined;
      await new DeleteConnectorAccount(deps).execute(scope, created.id);
      expect(accounts.rows.get(created.id)!.state.deletedAt).to.not.equal(null);
    });
  });

  describe('verify without saving', () => {
    it('answers invalid for credentials that do not match the schema, without calling the partner', async () => {
      const { deps, catalog } = connectorAccountDeps();
      const result = await new VerifyConnectorCredentials(deps).execute('sandbox', { merchantId: 'm' }, {});
      expect(result.result).to.equal('invalid');
      expect(result.message).to.include('credentials.apiKey');
      expect(catalog.verifications).to.have.length(0);
    });

    it('answers unreachable when the adapter fails', async () => {
      const { deps, catalog } = connectorAccountDeps();
      catalog.nextVerification = new ConnectorFailure('technical', 'down', { nothingSent: true });
      const result = await new VerifyConnectorCredentials(deps).execute('sandbox', { merchantId: 'm', apiKey: 'k' }, {});
      expect(result.result).to.equal('unreachable');
    });
  });

  describe('directory', () => {
    it('lists only enabled accounts with the capability, with their decrypted credentials', async () => {
      const { deps } = connectorAccountDeps();
      const create = new CreateConnectorAccount(deps);
      const on = await create.execute(input({ costBasisPoints: 10 }));
      await create.execute(input({ name: 'Off', enabled: false }));
      const directory = new ConnectorAccountDirectoryService(deps);
      const routable = await directory.listEnabledWithCredentials(scope, { capability: 'pix' });
      expect(routable.map((r) => r.account.id)).to.deep.equal([on.id]);
      expect(routable[0]!.credentials.values).to.deep.equal({ merchantId: 'merchant-1', apiKey: 'secret-key' });
      expect(await directory.listEnabledWithCredentials(scope, { capability: 'boleto' })).to.deep.equal([]);
      expect(await directory.open({ ...scope, environment: 'live' }, on.id)).to.equal(null);
    });
  });
});
