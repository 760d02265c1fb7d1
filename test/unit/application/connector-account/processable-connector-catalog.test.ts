import { expect } from 'chai';
import { ProcessableConnectorCatalog } from '../../../../application/connector-account/processable-connector-catalog';
import { SUPPORTED_CAPABILITIES } from '../../../../domain/connector-account/supported-capabilities';
import { FAKE_SANDBOX, FakeConnectorCatalog } from '../../../support/connector-account-fakes';

/** Capabilities partners declare that the core does not process (none of them is in SUPPORTED_CAPABILITIES). */
const UNPROCESSED = ['crypto_wallet', 'bnpl'];

describe('ProcessableConnectorCatalog (what the catalog, /health and effectiveCapabilities show)', () => {
  const declared = new FakeConnectorCatalog();
  declared.entries = [
    { ...FAKE_SANDBOX, capabilities: ['bnpl', 'card', 'crypto_wallet', 'refund'] },
    { ...FAKE_SANDBOX, slug: 'partner', name: 'Partner', capabilities: ['crypto_wallet'], available: false },
  ];
  const catalog = new ProcessableConnectorCatalog(declared);

  it('the test capabilities are really outside the supported list', () => {
    expect(SUPPORTED_CAPABILITIES).to.not.include.any.members(UNPROCESSED);
  });

  it('narrows every listed entry to the supported capabilities, in the declared order, keeping the rest of the entry', async () => {
    const [sandbox, partner] = await catalog.list();
    expect(sandbox).to.deep.equal({ ...FAKE_SANDBOX, capabilities: ['card', 'refund'] });
    expect(partner).to.include({ slug: 'partner', available: false });
    expect(partner!.capabilities).to.deep.equal([]);
  });

  it('narrows a found entry too, and answers null for an unknown slug', async () => {
    expect((await catalog.find('sandbox'))!.capabilities).to.deep.equal(['card', 'refund']);
    expect(await catalog.find('nobody')).to.equal(null);
  });

  it('leaves what it reads untouched', async () => {
    await catalog.list();
    expect(declared.entries[0]!.capabilities).to.deep.equal(['bnpl', 'card', 'crypto_wallet', 'refund']);
  });
});
