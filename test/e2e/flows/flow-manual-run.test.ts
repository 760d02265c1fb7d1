import { expect } from 'chai';
import type { ProductServices } from '../../../infrastructure/main/modules';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import { node } from '../../support/builders/flow-graph.builder';


/** Manual runs (POST /v1/flows/{id}/run) through the REST edge on PostgreSQL. */
describe('manual flow runs (PostgreSQL)', function () {
  this.timeout(120_000);
  let service: TestService<ProductServices>;
  let merchant: Merchant;
  let manualFlowId: string;

  const runs = async () => Number((await service.core.orm.em.fork({ useContext: false }).execute<Array<{ n: string }>>('select count(*) as n from manual_flow_runs'))[0]!.n);
  const notifications = async (runId: string) =>
    (await service.core.orm.em.fork({ useContext: false }).execute<Array<{ data: any }>>(`select data from events where type = 'flow.notification' and object_id like ?`, [`${runId}.%`])).map((r) =>
      typeof r.data === 'string' ? JSON.parse(r.data) : r.data,
    );

  before(async () => {
    service = await startTestService({ transport: 'in-process', workers: false });
    merchant = await service.merchant('Manual runs');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
    // trigger -> amount >= R$ 1.000 ? notify, then charge : decline
    const graph = {
      nodes: [
        node('trigger', 'trigger'),
        node('big', 'condition', { field: 'amount', operator: 'gte', value: 100_000 }),
        node('tell', 'webhook', { channel: 'ops', text: 'big ticket' }),
        node('charge', 'acquirer', { connectorAccountId: account.body.id }),
        node('approve', 'approve'),
        node('decline', 'decline'),
      ],
      edges: [
        { source: 'trigger', target: 'big' },
        { source: 'big', sourcePort: 'true', target: 'tell' },
        { source: 'big', sourcePort: 'false', target: 'decline' },
        { source: 'tell', target: 'charge' },
        { source: 'charge', sourcePort: 'approved', target: 'approve' },
        { source: 'charge', sourcePort: 'declined', target: 'decline' },
      ],
    };
    const flow = await merchant.sandbox.post('/v1/flows', { name: 'Manual check', triggerEvent: 'manual', graph });
    expect(flow.status, JSON.stringify(flow.body)).to.equal(201);
    manualFlowId = flow.body.id;
    const published = await merchant.sandbox.post(`/v1/flows/${manualFlowId}/publish`, {});
    expect(published.status, JSON.stringify(published.body)).to.equal(200);
  });
  after(async () => {
    await service?.stop();
  });

  it('runs over input facts: decisions recorded, a webhook node notifies, a charging node stops the run; read back by id', async () => {
    const run = await merchant.sandbox.post(`/v1/flows/${manualFlowId}/run`, { input: { amount: 150_000, metadata: { segment: 'b2b' } } });
    expect(run.status, JSON.stringify(run.body)).to.equal(201);
    expect(run.body).to.include({ object: 'flow_run', flowId: manualFlowId, version: 1, paymentId: null, outcome: 'stopped' });
    expect(run.body.id).to.match(/^frun_/);
    expect(run.body.steps.map((s: any) => [s.nodeId, s.port])).to.deep.equal([['trigger', 'next'], ['big', 'true'], ['tell', 'next'], ['charge', null]]);
    expect(run.body.facts).to.include({ amount: 150_000, currency: 'BRL' });
    const [notification] = await notifications(run.body.id);
    expect(notification.object).to.deep.include({ object: 'flow_notification', flowRunId: run.body.id, nodeId: 'tell', paymentId: null, data: { channel: 'ops', text: 'big ticket' } });
    const read = await merchant.sandbox.get(`/v1/flows/${manualFlowId}/runs/${run.body.id}`);
    expect(read.status).to.equal(200);
    expect(read.body).to.deep.equal(run.body);
    expect((await merchant.sandbox.get(`/v1/flows/${manualFlowId}/runs/frun_unknown`)).status).to.equal(404);
  });

  it('runs over a payment\'s facts: the run names the payment and its notification cites it', async () => {
    const small = await merchant.sandbox.post('/v1/payments', { amount: 3_100, card: { token: 'tok_sandbox_approved' } });
    const declined = await merchant.sandbox.post(`/v1/flows/${manualFlowId}/run`, { paymentId: small.body.id });
    expect(declined.body).to.include({ outcome: 'declined', paymentId: small.body.id });
    expect(declined.body.steps.map((s: any) => [s.nodeId, s.port])).to.deep.equal([['trigger', 'next'], ['big', 'false'], ['decline', null]]);
    const big = await merchant.sandbox.post('/v1/payments', { amount: 200_000, card: { token: 'tok_sandbox_approved' } });
    const stopped = await merchant.sandbox.post(`/v1/flows/${manualFlowId}/run`, { paymentId: big.body.id });
    expect(stopped.body).to.include({ outcome: 'stopped', paymentId: big.body.id });
    const [notification] = await notifications(stopped.body.id);
    expect(notification.object.payment).to.deep.equal({ id: big.body.id, status: 'captured', amount: 200_000, currency: 'BRL' });
    // The payment itself is untouched: a manual run decides and notifies, it does not charge.
    expect((await merchant.sandbox.get(`/v1/payments/${big.body.id}`)).body.attempts).to.have.length(1);
  });

  it('refuses what it cannot run with the contract\'s error body and records nothing', async () => {
    const before = await runs();
    const draft = await merchant.sandbox.post('/v1/flows', { name: 'Unpublished', triggerEvent: 'manual' });
    const notPublished = await merchant.sandbox.post(`/v1/flows/${draft.body.id}/run`, {});
    expect(notPublished.status).to.equal(409);
    expect(notPublished.body.error).to.include({ code: 'invalid_state' });
    expect(notPublished.body.error.requestId).to.match(/^req_/);
    const account = (await merchant.sandbox.get('/v1/connector-accounts')).body.data[0].id;
    const card = await merchant.sandbox.post('/v1/flows', {
      name: 'Card routing',
      graph: {
        nodes: [node('trigger', 'trigger'), node('charge', 'acquirer', { connectorAccountId: account }), node('approve', 'approve'), node('decline', 'decline')],
        edges: [{ source: 'trigger', target: 'charge' }, { source: 'charge', sourcePort: 'approved', target: 'approve' }, { source: 'charge', sourcePort: 'declined', target: 'decline' }],
      },
    });
    expect((await merchant.sandbox.post(`/v1/flows/${card.body.id}/publish`, {})).status).to.equal(200);
    const notManual = await merchant.sandbox.post(`/v1/flows/${card.body.id}/run`, { input: { amount: 1 } });
    expect(notManual.status).to.equal(422);
    expect(notManual.body.error).to.include({ code: 'validation_failed', param: 'path.id' });
    await merchant.sandbox.post(`/v1/flows/${card.body.id}/unpublish`, {});
    const unknownPayment = await merchant.sandbox.post(`/v1/flows/${manualFlowId}/run`, { paymentId: 'pay_unknown' });
    expect(unknownPayment.status).to.equal(422);
    expect(unknownPayment.body.error).to.include({ code: 'resource_missing', param: 'body.paymentId' });
    const both = await merchant.sandbox.post(`/v1/flows/${manualFlowId}/run`, { paymentId: 'pay_x', input: { amount: 1 } });
    expect(both.body.error).to.include({ code: 'validation_failed', param: 'body.input' });
    const badInput = await merchant.sandbox.post(`/v1/flows/${manualFlowId}/run`, { input: { amount: -1 } });
    expect(badInput.status).to.equal(422);
    expect(badInput.body.error.param).to.equal('body.input.amount');
    expect((await merchant.sandbox.post('/v1/flows/flow_unknown/run', {})).status).to.equal(404);
    expect(await runs()).to.equal(before);
  });
});
