import { expect } from 'chai';
import { CreateFlow } from '../../../../application/flows/create-flow';
import { DomainError } from '../../../../domain/shared/domain-error';
import { flowDeps } from '../../../support/flow-fakes';
import { minimalGraph } from '../../domain/flow/fixtures';

const scope = { organizationId: 'org_1', environment: 'sandbox' as const };

describe('CreateFlow (a draft)', () => {
  it('stores a draft of the graph given, active nowhere, with no version', async () => {
    const { deps, flows } = flowDeps();
    const created = await new CreateFlow(deps).execute({ scope, name: 'Cheapest first', graph: minimalGraph('ca_1') });
    const stored = flows.stored(scope, created.id)!;
    expect(created.id).to.match(/^flw_/);
    expect([stored.status, stored.active, stored.latestVersion, stored.publishedVersion]).to.deep.equal(['draft', false, 0, null]);
    expect(stored.graph).to.deep.equal(minimalGraph('ca_1'));
    expect(stored.triggerEvent).to.equal('payment.authorization_requested');
    expect(flows.versions.size).to.equal(0);
  });

  it('without a graph or template, starts from a lone trigger', async () => {
    const { deps, flows } = flowDeps();
    const created = await new CreateFlow(deps).execute({ scope, name: 'Empty' });
    expect(flows.stored(scope, created.id)!.graph.nodes.map((n) => n.type)).to.deep.equal(['trigger']);
  });

  it('keeps its own copy of the graph: changing the caller\'s object afterwards changes nothing stored', async () => {
    const { deps, flows } = flowDeps();
    const graph = minimalGraph('ca_1');
    const created = await new CreateFlow(deps).execute({ scope, name: 'Copy', graph });
    graph.nodes.pop();
    expect(flows.stored(scope, created.id)!.graph).to.deep.equal(minimalGraph('ca_1'));
  });

  it('refuses an unknown template as validation_failed on body.template and stores nothing', async () => {
    const { deps, flows } = flowDeps();
    const refusal = await new CreateFlow(deps).execute({ scope, name: 'x', template: 'no_such_template' }).catch((e: unknown) => e);
    expect(refusal).to.be.instanceOf(DomainError);
    expect([(refusal as DomainError).code, (refusal as DomainError).meta.param]).to.deep.equal(['validation_failed', 'body.template']);
    expect(flows.rows.size).to.equal(0);
  });

  it('refuses a structurally broken graph (an edge to a missing node) and stores nothing', async () => {
    const { deps, flows } = flowDeps();
    const broken = minimalGraph('ca_1');
    broken.edges.push({ id: 'dangling', source: 'a', target: 'nowhere', sourcePort: 'error' });
    await expect(new CreateFlow(deps).execute({ scope, name: 'Broken', graph: broken })).to.be.rejectedWith(DomainError);
    expect(flows.rows.size).to.equal(0);
  });
});
