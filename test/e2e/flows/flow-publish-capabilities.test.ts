import { expect } from 'chai';
import { startTestServiceWith, type TestService } from '../../support/test-service';
import { startDescribedAcquirer } from '../../support/described-acquirer-adapter';
import { threeDsGraph } from '../../support/builders/flow-graph.builder';
import type { RunningGrpcServer } from '../../../infrastructure/grpc/grpc-server';
import { IDENTITY_MODULE } from '../../../infrastructure/main/identity.module';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { FLOWS_MODULE } from '../../../infrastructure/main/flows.module';
import { moduleList } from '../../../infrastructure/main/module';

const MODULES = moduleList().with(IDENTITY_MODULE).with(FLOWS_MODULE).with(CONNECTORS_MODULE);

describe('publishing a flow checks its accounts against their adapters\' capabilities (REST, PostgreSQL, test adapters over gRPC)', function () {
  this.timeout(60_000);
  const adapters: RunningGrpcServer[] = [];
  let service: TestService;
  let lean: RunningGrpcServer;

  /** Another process of the installation whose `lean` connector is served at `address`: a catalog of its own. */
  const processWithLeanAt = (address: string) =>
    startTestServiceWith(MODULES, { joining: service, transport: 'in-process', workers: false, adapters: [{ slug: 'lean', address }] });

  before(async () => {
    // An acquirer that takes cards but cannot authenticate cardholders.
    lean = await startDescribedAcquirer('lean', ['card', 'refund']);
    adapters.push(lean);
    service = await startTestServiceWith(MODULES, { transport: 'in-process', workers: false, adapters: [{ slug: 'lean', address: lean.address }] });
  });
  after(async () => {
    await service?.stop();
    await Promise.all(adapters.map((adapter) => adapter.stop(0)));
  });

  it('refuses a three_ds node on an account whose adapter lacks three_ds (422, the fault on the node\'s param), and publishes the same flow once the adapter has it', async () => {
    const m = await service.merchant('Capabilities');
    const account = await m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'lean', name: 'lean', credentials: { merchantId: 'm_lean', apiKey: 'sk_test' } });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
    expect(account.body.effectiveCapabilities).to.deep.equal(['card', 'refund']);
    const flow = await m.sandbox.post('/v1/flows', { name: '3DS first', graph: threeDsGraph(account.body.id, 'decline') });
    expect(flow.status, JSON.stringify(flow.body)).to.equal(201);

    const refused = await m.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {});
    expect(refused.status, JSON.stringify(refused.body)).to.equal(422);
    expect(refused.body.error.code).to.equal('validation_failed');
    expect(refused.body.error.details).to.deep.equal([
      { param: 'graph.nodes[1].data.connectorAccountId', message: `Node auth names connector account ${account.body.id}, which cannot authenticate cardholders (three_ds).` },
    ]);
    expect((await m.sandbox.get(`/v1/flows/${flow.body.id}`)).body.status).to.equal('draft');

    // The partner's adapter now authenticates: a process that describes it anew publishes the same flow.
    const capable = await startDescribedAcquirer('lean', ['card', 'refund', 'three_ds']);
    adapters.push(capable);
    const upgraded = await processWithLeanAt(capable.address);
    try {
      const published = await upgraded.client(m.sandboxKey).post(`/v1/flows/${flow.body.id}/publish`, {});
      expect(published.status, JSON.stringify(published.body)).to.equal(200);
      expect(published.body).to.include({ status: 'published', publishedVersion: 1 });
    } finally {
      await upgraded.stop();
    }
  });

  it('publishes when the account\'s adapter cannot be described (down): its capabilities are unknown, not none', async () => {
    const m = await service.merchant('Adapter down');
    const account = await m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'lean', name: 'lean', credentials: { merchantId: 'm_lean', apiKey: 'sk_test' } });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
    const flow = await m.sandbox.post('/v1/flows', { name: '3DS first', graph: threeDsGraph(account.body.id, 'decline') });

    const gone = await startDescribedAcquirer('lean', ['card']);
    await gone.stop(0);
    const blind = await processWithLeanAt(gone.address);
    try {
      const published = await blind.client(m.sandboxKey).post(`/v1/flows/${flow.body.id}/publish`, {});
      expect(published.status, JSON.stringify(published.body)).to.equal(200);
      expect(published.body.status).to.equal('published');
    } finally {
      await blind.stop();
    }
  });
});
