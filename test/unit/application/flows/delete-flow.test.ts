import { expect } from 'chai';
import { CreateFlow } from '../../../../application/flows/create-flow';
import { DeleteFlow } from '../../../../application/flows/delete-flow';
import { PublishFlow } from '../../../../application/flows/publish-flow';
import { DomainError, NotFoundError } from '../../../../domain/shared/domain-error';
import { flowDeps } from '../../../support/flow-fakes';
import { minimalGraph } from '../../domain/flow/fixtures';

const scope = { organizationId: 'org_1', environment: 'sandbox' as const };

describe('DeleteFlow', () => {
  it('deletes a draft', async () => {
    const { deps, flows } = flowDeps();
    const { id } = await new CreateFlow(deps).execute({ scope, name: 'Draft' });
    expect(await new DeleteFlow(deps).execute(scope, id)).to.deep.equal({ object: 'flow', id, deleted: true });
    expect(flows.stored(scope, id)).to.equal(undefined);
  });

  it('refuses a published flow (it may be running payments) with invalid_state and keeps it and its versions', async () => {
    const { deps, flows } = flowDeps();
    flows.withAcquirer(scope, 'ca_1');
    const { id } = await new CreateFlow(deps).execute({ scope, name: 'Live routing', graph: minimalGraph('ca_1') });
    await new PublishFlow(deps).execute(scope, id);
    const refusal = await new DeleteFlow(deps).execute(scope, id).catch((e: unknown) => e);
    expect(refusal).to.be.instanceOf(DomainError);
    expect((refusal as DomainError).code).to.equal('invalid_state');
    expect(flows.stored(scope, id)!.status).to.equal('published');
    expect(await flows.listVersions({} as never, scope, id)).to.have.length(1);
  });

  it('an unknown flow is not found', async () => {
    const { deps } = flowDeps();
    await expect(new DeleteFlow(deps).execute(scope, 'flw_missing')).to.be.rejectedWith(NotFoundError);
  });
});
