import { expect } from 'chai';
import { CreateFlow } from '../../../../application/flows/create-flow';
import { PublishFlow } from '../../../../application/flows/publish-flow';
import { UpdateFlow } from '../../../../application/flows/update-flow';
import { DomainError, NotFoundError } from '../../../../domain/shared/domain-error';
import { flowDeps } from '../../../support/flow-fakes';
import { minimalGraph } from '../../domain/flow/fixtures';

const scope = { organizationId: 'org_1', environment: 'sandbox' as const };

describe('UpdateFlow (edits the draft)', () => {
  it('edits the draft only: the published version payments run stays as it was', async () => {
    const { deps, flows } = flowDeps();
    flows.withAcquirer(scope, 'ca_1').withAcquirer(scope, 'ca_2');
    const { id } = await new CreateFlow(deps).execute({ scope, name: 'Routing', graph: minimalGraph('ca_1') });
    await new PublishFlow(deps).execute(scope, id);
    const updated = await new UpdateFlow(deps).execute(scope, id, { name: 'Routing v2', graph: minimalGraph('ca_2') });
    const stored = flows.stored(scope, id)!;
    expect([stored.name, stored.publishedVersion, stored.draftVersion]).to.deep.equal(['Routing v2', 1, null]);
    expect(updated.hasUnpublishedChanges).to.equal(true);
    expect((await flows.findVersion({} as never, scope, id, 1))!.graph).to.deep.equal(minimalGraph('ca_1'));
  });

  it('refuses to change the trigger of a flow once published, leaving the flow as it was', async () => {
    const { deps, flows } = flowDeps();
    flows.withAcquirer(scope, 'ca_1');
    const { id } = await new CreateFlow(deps).execute({ scope, name: 'Routing', graph: minimalGraph('ca_1') });
    await new PublishFlow(deps).execute(scope, id);
    const before = flows.stored(scope, id);
    const refusal = await new UpdateFlow(deps).execute(scope, id, { name: 'Renamed', triggerEvent: 'manual' }).catch((e: unknown) => e);
    expect([(refusal as DomainError).code, (refusal as DomainError).meta.param]).to.deep.equal(['invalid_state', 'body.triggerEvent']);
    expect(flows.stored(scope, id)).to.deep.equal(before);
  });

  it('an unknown flow, or one of another environment, is not found', async () => {
    const { deps } = flowDeps();
    const { id } = await new CreateFlow(deps).execute({ scope, name: 'Sandbox only' });
    await expect(new UpdateFlow(deps).execute(scope, 'flw_missing', { name: 'x' })).to.be.rejectedWith(NotFoundError);
    await expect(new UpdateFlow(deps).execute({ ...scope, environment: 'live' }, id, { name: 'x' })).to.be.rejectedWith(NotFoundError);
  });
});
