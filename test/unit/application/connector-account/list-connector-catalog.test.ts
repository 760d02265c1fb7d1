import { expect } from 'chai';
import { ListConnectorCatalog } from '../../../../application/connector-account/list-connector-catalog';
import { FAKE_SANDBOX, FakeConnectorCatalog } from '../../../support/connector-account-fakes';

const antifraud = { ...FAKE_SANDBOX, slug: 'clearsale', name: 'ClearSale', kind: 'antifraud' as const, capabilities: ['fraud_analysis'] };
const comingSoon = { ...FAKE_SANDBOX, slug: 'stone', name: 'Stone', capabilities: ['card'], available: false };

function catalogOf() {
  const catalog = new FakeConnectorCatalog();
  catalog.entries = [FAKE_SANDBOX, antifraud, comingSoon];
  return new ListConnectorCatalog(catalog);
}
const slugs = (entries: Array<{ slug: string }>) => entries.map((e) => e.slug);

describe('ListConnectorCatalog (GET /v1/connectors)', () => {
  it('without a filter lists every entry, coming-soon ones included, in the catalog order', async () => {
    expect(slugs(await catalogOf().execute())).to.deep.equal(['sandbox', 'clearsale', 'stone']);
  });

  it('kind keeps only the entries of that kind', async () => {
    expect(slugs(await catalogOf().execute({ kind: 'antifraud' }))).to.deep.equal(['clearsale']);
    expect(slugs(await catalogOf().execute({ kind: 'acquirer' }))).to.deep.equal(['sandbox', 'stone']);
  });

  it('capability keeps only the entries that declare it, and combines with kind', async () => {
    expect(slugs(await catalogOf().execute({ capability: 'pix' }))).to.deep.equal(['sandbox']);
    expect(slugs(await catalogOf().execute({ capability: 'card', kind: 'antifraud' }))).to.deep.equal([]);
  });

  it('an adapter that is down is simply absent', async () => {
    const catalog = new FakeConnectorCatalog();
    catalog.adapterDown();
    expect(await new ListConnectorCatalog(catalog).execute()).to.deep.equal([]);
  });
});
