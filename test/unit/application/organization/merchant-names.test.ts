import { expect } from 'chai';
import { MerchantNames } from '../../../../application/organization/merchant-names';
import type { ChangeFeed, ChangeListener, ChangeTopic } from '../../../../domain/ports/change-feed';
import { InMemoryOrganizations } from '../../../support/api-key-fakes';
import { FakeTransactor, SteppingClock } from '../../../support/payment-fakes';

/** A feed the test drives: announces changes of the topic the cache listens to. */
class ScriptedFeed implements ChangeFeed {
  live = true;
  readonly topics: ChangeTopic[] = [];
  private readonly listeners: ChangeListener[] = [];

  subscribe(topic: ChangeTopic, listener: ChangeListener): void {
    this.topics.push(topic);
    this.listeners.push(listener);
  }

  change(key: string): void {
    for (const listener of this.listeners) listener.onChange(key);
  }
}

/** Organizations whose reads are counted. */
class CountedOrganizations extends InMemoryOrganizations {
  reads = 0;
  override async findById(...args: Parameters<InMemoryOrganizations['findById']>) {
    this.reads += 1;
    return super.findById(...args);
  }
}

describe('MerchantNames (the checkout\'s merchant name, kept under the change feed)', () => {
  it('reads an organization\'s name once, and again after a change of that organization is announced', async () => {
    const organizations = new CountedOrganizations().add('org_1').add('org_2');
    const feed = new ScriptedFeed();
    const names = new MerchantNames(new FakeTransactor(), organizations, { changes: feed, clock: new SteppingClock() });
    expect(feed.topics).to.deep.equal(['organizations']);
    expect(await names.of('org_1')).to.equal('Organization org_1');
    expect(await names.of('org_1')).to.equal('Organization org_1');
    expect(organizations.reads).to.equal(1);

    organizations.rows.set('org_1', { ...organizations.rows.get('org_1')!, name: 'Loja Renomeada' });
    feed.change('org_2');
    expect(await names.of('org_1'), 'another organization\'s change keeps it').to.equal('Organization org_1');
    feed.change('org_1');
    expect(await names.of('org_1')).to.equal('Loja Renomeada');
    expect(organizations.reads).to.equal(2);
  });

  it('does not remember an organization that does not exist (one created a moment later is named at once)', async () => {
    const organizations = new CountedOrganizations();
    const names = new MerchantNames(new FakeTransactor(), organizations, { changes: new ScriptedFeed(), clock: new SteppingClock() });
    expect(await names.of('org_new')).to.equal(null);
    organizations.add('org_new');
    expect(await names.of('org_new')).to.equal('Organization org_new');
  });
});
