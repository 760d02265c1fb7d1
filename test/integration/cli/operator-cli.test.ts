import { expect } from 'chai';
import { CLI_COMMANDS, parseFlags } from '../../../infrastructure/main/cli';
import { startTestServiceWith, type TestService } from '../../support/test-service';
import { moduleList } from '../../../infrastructure/main/module';

describe('operators CLI (org create, api-key create)', () => {
  let service: TestService;
  before(async () => {
    service = await startTestServiceWith(moduleList(), { adapters: [], workers: false });
  });
  after(() => service.stop());

  it('parses --flag value and --flag=value', () => {
    expect(parseFlags(['--name', 'ACME', '--environment=live'])).to.deep.equal({ name: 'ACME', environment: 'live' });
    expect(() => parseFlags(['stray'])).to.throw(/unexpected argument/);
  });

  it('creates an organization and prints a key once that then authenticates in its environment only', async () => {
    const organization = JSON.parse(await CLI_COMMANDS['org create'](service.core, { name: 'ACME', email: 'owner@example.com' }));
    expect(organization.id).to.match(/^org_/);
    const printed = JSON.parse(await CLI_COMMANDS['api-key create'](service.core, { org: organization.id, environment: 'live' }));
    expect(printed.secret).to.match(/^sk_live_[A-Za-z0-9_-]{40,}$/);
    expect(printed.environment).to.equal('live');

    const stored = await service.core.transactor.read((tx) => service.core.apiKeys.repository.listByOrganization(tx, organization.id));
    expect(stored).to.have.length(1);
    expect(JSON.stringify(stored)).not.to.contain(printed.secret);
    expect(stored[0].last4).to.equal(printed.secret.slice(-4));

    const key = await service.core.apiKeys.authenticate.execute(printed.secret);
    expect(key?.organizationId).to.equal(organization.id);
    expect(key?.environment).to.equal('live');
    // The same random part under the other environment's prefix is no key at all.
    expect(await service.core.apiKeys.authenticate.execute(printed.secret.replace('sk_live_', 'sk_sandbox_'))).to.equal(null);
  });

  it('refuses unknown organizations, environments and scopes', async () => {
    await expect(CLI_COMMANDS['api-key create'](service.core, { org: 'org_missing' })).to.be.rejectedWith(/No such organization/);
    await expect(CLI_COMMANDS['api-key create'](service.core, { org: 'x', environment: 'staging' })).to.be.rejectedWith(/sandbox or live/);
    const organization = await service.core.organizations.create.execute({ name: 'Scopes' });
    await expect(CLI_COMMANDS['api-key create'](service.core, { org: organization.id, scopes: 'payments:read,root' })).to.be.rejectedWith(/Unknown scope: root/);
  });
});
