import { expect } from 'chai';
import { CreateFlow } from '../../../../application/flows/create-flow';
import { PublishFlow } from '../../../../application/flows/publish-flow';
import { PublishedFlows } from '../../../../application/flows/published-flows';
import { UnpublishFlow } from '../../../../application/flows/unpublish-flow';
import { UpdateFlow } from '../../../../application/flows/update-flow';
import { tenantChangeKey, type ChangeFeed, type ChangeListener } from '../../../../domain/ports/change-feed';
import { flowDeps } from '../../../support/flow-fakes';
import { minimalGraph } from '../../domain/flow/fixtures';

const scope = { organizationId: 'org_1', environment: 'sandbox' as const };
const live = { organizationId: 'org_1', environment: 'live' as const };

/** A change feed the test drives, as the flow use cases' announcements would. */
class DrivenFeed implements ChangeFeed {
  live = true;
  private readonly listeners: ChangeListener[] = [];
  subscribe(_topic: string, listener: ChangeListener): void {
    this.listeners.push(listener);
  }
  announce(key: string): void {
    for (const listener of this.listeners) listener.onChange(key);
  }
}

async function world(withFeed = false) {
  const setup = flowDeps();
  setup.flows.withAcquirer(scope, 'ca_1').withAcquirer(scope, 'ca_2');
  const feed = new DrivenFeed();
  const deps = withFeed ? { ...setup.deps, changes: feed } : setup.deps;
  const publishNew = async (name: string, account: string) => {
    const { id } = await new CreateFlow(deps).execute({ scope, name, graph: minimalGraph(account) });
    await new PublishFlow(deps).execute(scope, id);
    return id;
  };
  return { ...setup, deps, feed, publishNew, published: new PublishedFlows(deps) };
}

describe('PublishedFlows (the flow a payment runs, and the flows citing an account)', () => {
  it('without a published flow, a payment runs direct routing (null)', async () => {
    const { published } = await world();
    expect(await published.forPayment(scope, null)).to.equal(null);
  });

  it("a payment runs the environment's active flow, at its version in force with its graph", async () => {
    const { published, publishNew } = await world();
    const id = await publishNew('Routing', 'ca_1');
    expect(await published.forPayment(scope, null)).to.deep.equal({ flowId: id, name: 'Routing', version: 1, graph: minimalGraph('ca_1') });
    expect(await published.forPayment(live, null)).to.equal(null);
  });

  it('a flow named by id is any published flow of the environment, active or not; a draft or unknown one is null', async () => {
    const { published, publishNew, deps } = await world();
    const older = await publishNew('Older', 'ca_1');
    const newer = await publishNew('Newer', 'ca_2');
    expect((await published.forPayment(scope, null))?.flowId).to.equal(newer);
    expect((await published.forPayment(scope, older))?.name).to.equal('Older');
    await new UnpublishFlow(deps).execute(scope, older);
    expect(await published.forPayment(scope, older)).to.equal(null);
    expect(await published.forPayment(scope, 'flw_nowhere')).to.equal(null);
  });

  it('graphOf reads a stored version, so a run resumes on the graph it started on after a newer publish', async () => {
    const { published, publishNew, deps } = await world();
    const id = await publishNew('Routing', 'ca_1');
    await new UpdateFlow(deps).execute(scope, id, { graph: minimalGraph('ca_2') });
    await new PublishFlow(deps).execute(scope, id);
    expect(await published.graphOf(scope, id, 1)).to.deep.equal(minimalGraph('ca_1'));
    expect(await published.graphOf(scope, id, 2)).to.deep.equal(minimalGraph('ca_2'));
    expect(await published.graphOf(scope, id, 3)).to.equal(null);
  });

  it('with a change feed, the active flow is read once until a flow of the environment changes', async () => {
    const { published, publishNew, flows, feed } = await world(true);
    const first = await publishNew('First', 'ca_1');
    await published.forPayment(scope, null);
    await published.forPayment(scope, null);
    expect(flows.publishedReads).to.equal(1);
    const second = await publishNew('Second', 'ca_2');
    // not announced yet: memory still answers the first
    expect((await published.forPayment(scope, null))?.flowId).to.equal(first);
    feed.announce(tenantChangeKey(scope));
    expect((await published.forPayment(scope, null))?.flowId).to.equal(second);
    expect(flows.publishedReads).to.equal(2);
  });

  it('a flow named by id is read each time, even with a change feed', async () => {
    const { published, publishNew, flows } = await world(true);
    const id = await publishNew('Routing', 'ca_1');
    await published.forPayment(scope, id);
    await published.forPayment(scope, id);
    expect(flows.publishedReads).to.equal(2);
  });

  it('names the published flows whose version in force cites each account', async () => {
    const { published, publishNew } = await world();
    const id = await publishNew('Routing', 'ca_1');
    const using = await published.publishedFlowsUsing({} as never, scope, ['ca_1', 'ca_2']);
    expect([...using.entries()]).to.deep.equal([['ca_1', [{ id, name: 'Routing' }]]]);
  });
});
