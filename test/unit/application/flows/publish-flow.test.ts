import { expect } from 'chai';
import { CreateFlow } from '../../../../application/flows/create-flow';
import { PublishFlow } from '../../../../application/flows/publish-flow';
import { UpdateFlow } from '../../../../application/flows/update-flow';
import { DomainError, NotFoundError } from '../../../../domain/shared/domain-error';
import { flowDeps } from '../../../support/flow-fakes';
import { minimalGraph } from '../../domain/flow/fixtures';

const scope = { organizationId: 'org_1', environment: 'sandbox' as const };

async function setup() {
  const world = flowDeps();
  world.flows.withAcquirer(scope, 'ca_1').withAcquirer(scope, 'ca_2');
  const create = (graph = minimalGraph('ca_1'), name = 'Routing') => new CreateFlow(world.deps).execute({ scope, name, graph });
  return { ...world, create, publish: new PublishFlow(world.deps), update: new UpdateFlow(world.deps) };
}

describe('PublishFlow', () => {
  it('stores the draft as version 1, with the accounts it names, and makes the flow active for its trigger', async () => {
    const { create, publish, flows } = await setup();
    const { id } = await create();
    const published = await publish.execute(scope, id);
    expect([published.status, published.active, published.publishedVersion]).to.deep.equal(['published', true, 1]);
    expect((await flows.listVersions({} as never, scope, id)).map((v) => [v.version, v.accountIds])).to.deep.equal([[1, ['ca_1']]]);
    expect(flows.lockedTriggers).to.deep.equal(['payment.authorization_requested']);
  });

  it('publishing an unchanged draft again stores no new version; an edited draft becomes version 2', async () => {
    const { create, publish, update, flows } = await setup();
    const { id } = await create();
    await publish.execute(scope, id);
    expect((await publish.execute(scope, id)).publishedVersion).to.equal(1);
    await update.execute(scope, id, { graph: minimalGraph('ca_2') });
    expect((await publish.execute(scope, id)).publishedVersion).to.equal(2);
    expect((await flows.listVersions({} as never, scope, id)).map((v) => v.version)).to.deep.equal([2, 1]);
  });

  it('rolls back to a stored version named in the body without storing a new one', async () => {
    const { create, publish, update, flows } = await setup();
    const { id } = await create();
    await publish.execute(scope, id);
    await update.execute(scope, id, { graph: minimalGraph('ca_2') });
    await publish.execute(scope, id);
    const rolledBack = await publish.execute(scope, id, { version: 1 });
    expect(rolledBack.publishedVersion).to.equal(1);
    expect(flows.versions.get(`org_1/sandbox/${id}`)).to.have.length(2);
  });

  it('the flow that was active steps down but stays published, so only one is active per trigger', async () => {
    const { create, publish, flows } = await setup();
    const first = await create(minimalGraph('ca_1'), 'First');
    const second = await create(minimalGraph('ca_2'), 'Second');
    await publish.execute(scope, first.id);
    await publish.execute(scope, second.id);
    expect([flows.stored(scope, first.id)!.status, flows.stored(scope, first.id)!.active]).to.deep.equal(['published', false]);
    expect(flows.stored(scope, second.id)!.active).to.equal(true);
  });

  it('refuses a graph naming an account that does not exist, with every fault in details, and changes nothing', async () => {
    const { create, publish, flows } = await setup();
    const { id } = await create(minimalGraph('ca_unknown'));
    const before = flows.stored(scope, id);
    const refusal = (await publish.execute(scope, id).catch((e: unknown) => e)) as DomainError;
    expect(refusal).to.be.instanceOf(DomainError);
    expect(refusal.code).to.equal('validation_failed');
    expect(refusal.meta.details).to.be.an('array').that.is.not.empty;
    expect(flows.stored(scope, id)).to.deep.equal(before);
    expect(flows.versions.size).to.equal(0);
  });

  it('refuses a version the flow does not have (body.version) and an unknown flow (not found)', async () => {
    const { create, publish } = await setup();
    const { id } = await create();
    const refusal = (await publish.execute(scope, id, { version: 3 }).catch((e: unknown) => e)) as DomainError;
    expect([refusal.code, refusal.meta.param]).to.deep.equal(['validation_failed', 'body.version']);
    await expect(publish.execute(scope, 'flw_missing')).to.be.rejectedWith(NotFoundError);
  });
});
