import { expect } from 'chai';
import { CreateFlow } from '../../../../application/flows/create-flow';
import { PublishFlow } from '../../../../application/flows/publish-flow';
import { UpdateFlow } from '../../../../application/flows/update-flow';
import { DomainError, NotFoundError } from '../../../../domain/shared/domain-error';
import type { ConnectorCapabilities } from '../../../../domain/ports/connector-capabilities';
import { flowDeps } from '../../../support/flow-fakes';
import { e, graph, minimalGraph, n } from '../../domain/flow/fixtures';

const scope = { organizationId: 'org_1', environment: 'sandbox' as const };

async function setup() {
  const world = flowDeps();
  world.flows.withAcquirer(scope, 'ca_1').withAcquirer(scope, 'ca_2');
  const create = (graph = minimalGraph('ca_1'), name = 'Routing') => new CreateFlow(world.deps).execute({ scope, name, graph });
  return { ...world, create, publish: new PublishFlow(world.deps), update: new UpdateFlow(world.deps) };
}

/** A three_ds node on account `authenticator`, then an acquirer on ca_1. */
function threeDsGraph(authenticator: string) {
  return graph(
    [n('t', 'trigger'), n('3ds', 'three_ds', { connectorAccountId: authenticator }), n('a', 'acquirer', { connectorAccountId: 'ca_1' }), n('ok', 'approve'), n('no', 'decline')],
    [e('t', '3ds'), e('3ds', 'a', 'authenticated'), e('3ds', 'no', 'failed'), e('3ds', 'no', 'unavailable'), e('a', 'ok', 'approved'), e('a', 'no', 'declined')],
  );
}

/** Capabilities by connector slug, as adapters described them; records whether it was asked inside a transaction. */
class FakeCapabilities implements ConnectorCapabilities {
  askedInTransaction: boolean[] = [];
  constructor(
    private readonly bySlug: Record<string, readonly string[]>,
    private readonly transactor: { open: number },
  ) {}
  async known() {
    this.askedInTransaction.push(this.transactor.open > 0);
    return new Map(Object.entries(this.bySlug));
  }
}

async function setupWithCapabilities(bySlug: Record<string, readonly string[]>) {
  const world = flowDeps();
  world.flows.withAcquirer(scope, 'ca_1').withAcquirer(scope, 'ca_lean', 'lean').withAcquirer(scope, 'ca_down', 'down');
  const capabilities = new FakeCapabilities(bySlug, world.transactor);
  const deps = { ...world.deps, capabilities };
  const create = (g: ReturnType<typeof graph>) => new CreateFlow(deps).execute({ scope, name: '3DS', graph: g });
  return { ...world, capabilities, create, publish: new PublishFlow(deps) };
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

  describe('the accounts\' capabilities, from their connectors\' adapters', () => {
    it('refuses a three_ds node whose account\'s connector cannot authenticate, with the fault on its param, asked outside the transaction', async () => {
      const { create, publish, capabilities, flows } = await setupWithCapabilities({ sandbox: ['card', 'three_ds'], lean: ['card'] });
      const { id } = await create(threeDsGraph('ca_lean'));
      const refusal = (await publish.execute(scope, id).catch((error: unknown) => error)) as DomainError;
      expect([refusal.code, refusal.meta.param]).to.deep.equal(['validation_failed', 'graph.nodes[1].data.connectorAccountId']);
      expect(refusal.meta.details).to.deep.equal([
        { param: 'graph.nodes[1].data.connectorAccountId', message: 'Node 3ds names connector account ca_lean, which cannot authenticate cardholders (three_ds).' },
      ]);
      expect(capabilities.askedInTransaction).to.deep.equal([false]);
      expect(flows.versions.size).to.equal(0);
    });

    it('publishes the same graph on an account whose connector can', async () => {
      const { create, publish } = await setupWithCapabilities({ sandbox: ['card', 'three_ds'], lean: ['card'] });
      const { id } = await create(threeDsGraph('ca_1'));
      expect((await publish.execute(scope, id)).status).to.equal('published');
    });

    it('publishes when the account\'s adapter cannot be described now (capabilities unknown, not none)', async () => {
      const { create, publish } = await setupWithCapabilities({ sandbox: ['card', 'three_ds'] });
      const { id } = await create(threeDsGraph('ca_down'));
      expect((await publish.execute(scope, id)).status).to.equal('published');
    });
  });
});
