import { expect } from 'chai';
import { CatalogConnectorCapabilities } from '../../../../application/connector-account/catalog-connector-capabilities';
import { FAKE_SANDBOX, FakeConnectorCatalog } from '../../../support/connector-account-fakes';

describe('CatalogConnectorCapabilities (what flow publishing checks accounts against)', () => {
  it('gives each described connector the capabilities its accounts show, and none to a coming-soon entry', async () => {
    const catalog = new FakeConnectorCatalog();
    catalog.entries = [
      { ...FAKE_SANDBOX, capabilities: ['card', 'three_ds'] },
      { ...FAKE_SANDBOX, slug: 'partner', name: 'Partner', capabilities: ['card'], available: false },
    ];
    const known = await new CatalogConnectorCapabilities(catalog).known();
    expect([...known]).to.deep.equal([
      ['sandbox', ['card', 'three_ds']],
      ['partner', []],
    ]);
  });

});
