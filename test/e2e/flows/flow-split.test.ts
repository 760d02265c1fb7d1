import { expect } from 'chai';
import type { ProductServices } from '../../../infrastructure/main/modules';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import { recipientInput } from '../../support/builders/recipient.builder';
import { node, edge } from '../../support/builders/flow-graph.builder';

const visa = (token: string, last4: string) => ({ token, brand: 'visa', bin: '411111', last4, expMonth: 12, expYear: 2030 });

/** trigger -> split -> acquirer -> approve / decline. */
const splitGraph = (accountId: string, split: Record<string, unknown>) => ({
  nodes: [node('trigger', 'trigger'), node('split', 'split', split), node('charge', 'acquirer', { connectorAccountId: accountId }), node('approve', 'approve'), node('decline', 'decline')],
  edges: [edge('trigger', 'split'), edge('split', 'charge'), edge('charge', 'approve', 'approved'), edge('charge', 'decline', 'declined')],
});

/**
 * The split node through the REST edge on PostgreSQL with the sandbox acquirer over gRPC: published flows whose split
 * node divides real payments before the authorization.
 */
describe('flow split node (PostgreSQL, sandbox over gRPC)', function () {
  this.timeout(120_000);
  let service: TestService<ProductServices>;
  let merchant: Merchant;
  let accountId: string;
  let seller: string;
  let courier: string;

  const view = async (id: string) => (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
  const steps = (v: any) => v.flowExecution.steps.map((s: any) => [s.nodeId, s.port]);
  const events = async (objectId: string): Promise<Array<{ type: string; data: any }>> => {
    const rows = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ type: string; data: any }>>('select type, data from events where object_id = ? order by sequence nulls last, id', [objectId]);
    return rows.map((r) => ({ type: r.type, data: typeof r.data === 'string' ? JSON.parse(r.data) : r.data }));
  };
  const recipient = async (name: string) => {
    const r = await merchant.sandbox.post('/v1/recipients', recipientInput({ name }));
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body.id as string;
  };
  async function publish(graph: Record<string, unknown>): Promise<{ id: string; status: number; body: any }> {
    const flow = await merchant.sandbox.post('/v1/flows', { name: `split ${Math.random()}`, graph });
    expect(flow.status, JSON.stringify(flow.body)).to.equal(201);
    const published = await merchant.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {});
    return { id: flow.body.id, status: published.status, body: published.body };
  }

  before(async () => {
    service = await startTestService({ transport: 'in-process', workers: false });
    merchant = await service.merchant('Split flows');
    const created = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'splitter', credentials: { merchantId: 'splitter', apiKey: 'k1' } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    accountId = created.body.id;
    seller = await recipient('Seller');
    courier = await recipient('Courier');
  });
  after(async () => {
    await service?.stop();
  });

  it('divides a payment without splits by the node\'s shares: captured, shares computed, payment.captured carries them', async () => {
    const flow = await publish(splitGraph(accountId, {
      splits: [
        { recipientId: seller, type: 'percentage', value: 8_000, liableForChargeback: true },
        { recipientId: courier, type: 'fixed', value: 1_500 },
      ],
    }));
    expect(flow.status, JSON.stringify(flow.body)).to.equal(200);
    const r = await merchant.sandbox.post('/v1/payments', { amount: 10_001, card: visa('tok_sandbox_approved', '0301'), flowId: flow.id });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body.status).to.equal('captured');
    const v = await view(r.body.id);
    expect(steps(v)).to.deep.equal([['trigger', 'next'], ['split', 'next'], ['charge', 'approved'], ['approve', null]]);
    const shares = v.splits.map((s: any) => ({ recipientId: s.recipientId, type: s.type, amount: s.amount, capturedAmount: s.capturedAmount, liableForChargeback: s.liableForChargeback }));
    // 80 % of 10001 rounded down is 8000; the fixed share is 1500; the merchant keeps the 501 left.
    expect(shares).to.deep.equal([
      { recipientId: seller, type: 'percentage', amount: 8_000, capturedAmount: 8_000, liableForChargeback: true },
      { recipientId: courier, type: 'fixed', amount: 1_500, capturedAmount: 1_500, liableForChargeback: false },
    ]);
    const captured = (await events(r.body.id)).find((e) => e.type === 'payment.captured')!;
    expect(captured.data.object.splits.map((s: any) => [s.recipientId, s.amount])).to.deep.equal([[seller, 8_000], [courier, 1_500]]);
  });

  it('keeps a payment\'s own splits', async () => {
    const flow = await publish(splitGraph(accountId, { splits: [{ recipientId: seller, type: 'percentage', value: 9_000 }] }));
    expect(flow.status, JSON.stringify(flow.body)).to.equal(200);
    const r = await merchant.sandbox.post('/v1/payments', { amount: 5_000, card: visa('tok_sandbox_approved', '0302'), flowId: flow.id, splits: [{ recipientId: courier, type: 'fixed', value: 700 }] });
    expect(r.body.status, JSON.stringify(r.body)).to.equal('captured');
    expect((await view(r.body.id)).splits.map((s: any) => [s.recipientId, s.amount])).to.deep.equal([[courier, 700]]);
  });

  it('fixed shares above a payment\'s amount fail it split_invalid before any acquirer call', async () => {
    const flow = await publish(splitGraph(accountId, { splits: [{ recipientId: seller, type: 'fixed', value: 3_000 }] }));
    const r = await merchant.sandbox.post('/v1/payments', { amount: 2_000, card: visa('tok_sandbox_approved', '0303'), flowId: flow.id });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body.status).to.equal('failed');
    expect(r.body.error).to.include({ code: 'split_invalid' });
    expect(r.body.attempts).to.deep.equal([]);
    const v = await view(r.body.id);
    expect(v.splits).to.deep.equal([]);
    expect(v.routing.stopReason).to.equal('split_invalid');
    expect((await events(r.body.id)).find((e) => e.type === 'payment.failed')!.data.object.error.code).to.equal('split_invalid');
  });

  it('publishing refuses a recipient of another environment (or none) and a split placed after the acquirer, naming each fault', async () => {
    const live = await merchant.live.post('/v1/recipients', recipientInput({ name: 'Live seller' }));
    expect(live.status, JSON.stringify(live.body)).to.equal(201);
    const graph = splitGraph(accountId, { splits: [{ recipientId: live.body.id, type: 'percentage', value: 1_000 }, { recipientId: 'rcp_nobody', type: 'fixed', value: 1 }] });
    // acquirer -> split -> approve: the split would come after the authorization
    graph.edges = [edge('trigger', 'charge'), edge('charge', 'split', 'error'), edge('split', 'approve'), edge('charge', 'approve', 'approved'), edge('charge', 'decline', 'declined')];
    const refused = await publish(graph);
    expect(refused.status).to.equal(422);
    expect(refused.body.error.code).to.equal('validation_failed');
    const details = refused.body.error.details.map((d: any) => `${d.param}: ${d.message}`);
    expect(details).to.include.members([
      `graph.nodes[1].data.splits[0].recipientId: Node split names recipient ${live.body.id}, which does not exist in this environment.`,
      'graph.nodes[1].data.splits[1].recipientId: Node split names recipient rcp_nobody, which does not exist in this environment.',
    ]);
    expect(details.some((d: string) => d.includes('Split node split can be reached after an acquirer call or a wait'))).to.equal(true, details.join('\n'));
    expect((await merchant.sandbox.get(`/v1/flows/${refused.id}`)).body.status).to.equal('draft');
  });
});
