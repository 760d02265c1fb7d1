import { expect } from 'chai';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import type { ProductServices } from '../../../infrastructure/main/modules';
import { node, edge } from '../../support/builders/flow-graph.builder';

const card = { token: 'tok_sandbox_approved', brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030 };

/** trigger -> webhook(data) -> review; approved -> acquirer -> approve / decline; declined -> decline. */
const notifyingGraph = (accountId: string, data: Record<string, unknown>) => ({
  nodes: [node('trigger', 'trigger'), node('tell', 'webhook', data), node('hold', 'review'), node('charge', 'acquirer', { connectorAccountId: accountId }), node('approve', 'approve'), node('decline', 'decline')],
  edges: [edge('trigger', 'tell'), edge('tell', 'hold'), edge('hold', 'charge', 'approved'), edge('hold', 'decline', 'declined'), edge('charge', 'approve', 'approved'), edge('charge', 'decline', 'declined')],
});

/** A flow's Notify webhook node: flow.notification with the node's data, once per payment passing it, then `next`. */
describe('flow runs through a webhook node (PostgreSQL, sandbox over gRPC)', function () {
  this.timeout(60_000);
  let service: TestService<ProductServices>;
  let merchant: Merchant;
  let accountId: string;

  const events = async (paymentId: string) =>
    service.core.orm.em
      .fork({ useContext: false })
      .execute<Array<{ type: string; data: any }>>("select type, data from events where object_id in (?, ?) order by sequence nulls last, id", [paymentId, `${paymentId}.tell`]);

  before(async () => {
    service = await startTestService({ transport: 'in-process', workers: false });
    merchant = await service.merchant('Notify');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
    accountId = account.body.id;
  });
  after(async () => {
    await service?.stop();
  });

  it('publishing refuses data over 4096 characters, naming the node', async () => {
    const flow = await merchant.sandbox.post('/v1/flows', { name: 'Loud', graph: notifyingGraph(accountId, { text: 'x'.repeat(4_100) }) });
    expect(flow.status, JSON.stringify(flow.body)).to.equal(201);
    const refused = await merchant.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {});
    expect(refused.status).to.equal(422);
    expect(JSON.stringify(refused.body.error)).to.match(/Node tell: data is at most 4096 characters/);
  });

  it('emits flow.notification with the node data once, before the review; the decision does not repeat it', async () => {
    const flow = await merchant.sandbox.post('/v1/flows', { name: 'Tell ops', graph: notifyingGraph(accountId, { channel: 'ops', priority: 2 }) });
    const published = await merchant.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {});
    expect(published.status, JSON.stringify(published.body)).to.equal(200);

    const created = await merchant.sandbox.post('/v1/payments', { amount: 2_500, card });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.status).to.equal('processing');
    const held = await events(created.body.id);
    expect(held.map((e) => e.type)).to.deep.equal(['flow.notification']);
    expect(held[0]!.data.object).to.deep.include({ object: 'flow_notification', paymentId: created.body.id, nodeId: 'tell', data: { channel: 'ops', priority: 2 } });
    expect(held[0]!.data.object.flow).to.deep.include({ id: flow.body.id, version: 1 });

    const decided = await merchant.sandbox.post(`/v1/payments/${created.body.id}/review`, { decision: 'approve' });
    expect(decided.body.status).to.equal('captured');
    expect((await events(created.body.id)).map((e) => e.type)).to.deep.equal(['flow.notification', 'payment.captured']);
    const view = (await merchant.sandbox.get(`/v1/payments/${created.body.id}`)).body;
    expect(view.flowExecution.steps.map((s: any) => [s.nodeId, s.port])).to.deep.include(['tell', 'next']);
  });
});
