import { expect } from 'chai';
import { CreateFlow } from '../../../../application/flows/create-flow';
import { PublishFlow } from '../../../../application/flows/publish-flow';
import { GetFlow, GetFlowBuilderMetadata, ListFlows, ListFlowVersions } from '../../../../application/flows/read-flows';
import { EXECUTABLE_NODE_TYPES } from '../../../../domain/flow-run/flow-step';
import { RUNNABLE_NODE_TYPES } from '../../../../domain/flow/publish-check';
import { UpdateFlow } from '../../../../application/flows/update-flow';
import type { TenantScope } from '../../../../domain/shared/environment';
import { flowDeps } from '../../../support/flow-fakes';
import { refusal } from '../../../support/refusal';
import { minimalGraph } from '../../domain/flow/fixtures';

const scope = { organizationId: 'org_1', environment: 'sandbox' as const };
const live = { organizationId: 'org_1', environment: 'live' as const };

async function world() {
  const setup = flowDeps();
  setup.flows.withAcquirer(scope, 'ca_1').withAcquirer(scope, 'ca_2');
  const create = (name: string, s: TenantScope = scope) => new CreateFlow(setup.deps).execute({ scope: s, name, graph: minimalGraph('ca_1') });
  return { ...setup, create };
}

describe('flow reads (list, get, versions, builder metadata)', () => {
  it('lists the environment flows a page at a time, hasMore when more exist', async () => {
    const { deps, create } = await world();
    await create('A');
    await create('B');
    await create('C');
    await create('Live', live);
    const page = await new ListFlows(deps).execute(scope, { limit: 2 });
    expect([page.object, page.data.length, page.hasMore]).to.deep.equal(['list', 2, true]);
    const all = await new ListFlows(deps).execute(scope, { limit: 3 });
    expect([all.data.map((f) => f.name).sort(), all.hasMore]).to.deep.equal([['A', 'B', 'C'], false]);
  });

  it('gets one flow; one of another environment is not_found', async () => {
    const { deps, create } = await world();
    const created = await create('Routing');
    expect(await new GetFlow(deps).execute(scope, created.id)).to.deep.include({ object: 'flow', id: created.id, name: 'Routing', status: 'draft' });
    expect(await refusal(new GetFlow(deps).execute(live, created.id))).to.deep.equal({ code: 'not_found', param: null });
  });

  it('lists the stored versions newest first, marking the one in force', async () => {
    const { deps, create } = await world();
    const { id } = await create('Routing');
    await new PublishFlow(deps).execute(scope, id);
    await new UpdateFlow(deps).execute(scope, id, { graph: minimalGraph('ca_2') });
    await new PublishFlow(deps).execute(scope, id);
    await new PublishFlow(deps).execute(scope, id, { version: 1 });
    const versions = await new ListFlowVersions(deps).execute(scope, id);
    expect(versions.data.map((v) => [v.version, v.inForce, v.connectorAccountIds])).to.deep.equal([[2, false, ['ca_2']], [1, true, ['ca_1']]]);
  });

  it('versions of an unknown flow are not_found', async () => {
    const { deps } = await world();
    expect(await refusal(new ListFlowVersions(deps).execute(scope, 'flw_nowhere'))).to.deep.equal({ code: 'not_found', param: null });
  });

  it('the builder metadata marks publishable the node types publishing accepts, each one the executor can run', () => {
    const metadata = new GetFlowBuilderMetadata().execute();
    expect(metadata.object).to.equal('flow_builder_metadata');
    const publishable = metadata.nodeTypes.filter((t) => t.publishable).map((t) => t.type);
    expect(publishable).to.have.members([...RUNNABLE_NODE_TYPES]);
    expect(EXECUTABLE_NODE_TYPES).to.include.members(publishable);
  });
});
