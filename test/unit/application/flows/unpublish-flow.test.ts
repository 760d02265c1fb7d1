import { expect } from 'chai';
import { CreateFlow } from '../../../../application/flows/create-flow';
import { PublishFlow } from '../../../../application/flows/publish-flow';
import { UnpublishFlow } from '../../../../application/flows/unpublish-flow';
import { DomainError, NotFoundError } from '../../../../domain/shared/domain-error';
import { flowDeps } from '../../../support/flow-fakes';
import { minimalGraph } from '../../domain/flow/fixtures';

const scope = { organizationId: 'org_1', environment: 'sandbox' as const };

describe('UnpublishFlow', () => {
  it('back to draft: no longer active and no version in force, its versions kept', async () => {
    const { deps, flows } = flowDeps();
    flows.withAcquirer(scope, 'ca_1');
    const { id } = await new CreateFlow(deps).execute({ scope, name: 'Routing', graph: minimalGraph('ca_1') });
    await new PublishFlow(deps).execute(scope, id);
    await new UnpublishFlow(deps).execute(scope, id);
    const stored = flows.stored(scope, id)!;
    expect([stored.status, stored.active, stored.publishedVersion, stored.latestVersion]).to.deep.equal(['draft', false, null, 1]);
    expect(await flows.findActive({} as never, scope, 'payment.authorization_requested')).to.equal(null);
  });

  it('refuses a flow that is not published, changing nothing; an unknown flow is not found', async () => {
    const { deps, flows } = flowDeps();
    const { id } = await new CreateFlow(deps).execute({ scope, name: 'Draft' });
    const before = flows.stored(scope, id);
    const refusal = await new UnpublishFlow(deps).execute(scope, id).catch((e: unknown) => e);
    expect(refusal).to.be.instanceOf(DomainError);
    expect((refusal as DomainError).code).to.equal('invalid_state');
    expect(flows.stored(scope, id)).to.deep.equal(before);
    await expect(new UnpublishFlow(deps).execute(scope, 'flw_missing')).to.be.rejectedWith(NotFoundError);
  });
});
