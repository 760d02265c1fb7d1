import { expect } from 'chai';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import type { ProductServices } from '../../../infrastructure/main/modules';
import { node, edge } from '../../support/builders/flow-graph.builder';

const card = { token: 'tok_sandbox_approved', brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030 };

/** trigger -> review; approved -> acquirer -> approve / decline; declined -> decline. */
const reviewedGraph = (accountId: string) => ({
  nodes: [node('trigger', 'trigger'), node('hold', 'review'), node('charge', 'acquirer', { connectorAccountId: accountId }), node('approve', 'approve'), node('decline', 'decline'), node('refuse', 'decline')],
  edges: [edge('trigger', 'hold'), edge('hold', 'charge', 'approved'), edge('hold', 'refuse', 'declined'), edge('charge', 'approve', 'approved'), edge('charge', 'decline', 'declined')],
});

/**
 * A flow's Manual review node: the payment waits processing with review pending (contract.md 7) on a durable wait,
 * POST /v1/payments/{id}/review resumes the run through ResumeFlowRun by the approved or declined exit, once.
 */
describe('flow runs held at a Manual review node (PostgreSQL, sandbox over gRPC)', function () {
  this.timeout(60_000);
  const clock = new ManualClock(new Date('2026-11-26T12:00:00.000Z'));
  let service: TestService<ProductServices>;
  let merchant: Merchant;
  let accountId: string;

  const eventTypes = async (paymentId: string) =>
    (await service.core.orm.em.fork({ useContext: false }).execute<Array<{ type: string }>>('select type from events where object_id = ? order by sequence nulls last, id', [paymentId])).map((r) => r.type);
  const held = async () => {
    const created = await merchant.sandbox.post('/v1/payments', { amount: 5_100, card });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body;
  };
  const review = (paymentId: string, body: Record<string, unknown>) => merchant.sandbox.post(`/v1/payments/${paymentId}/review`, body);

  before(async () => {
    service = await startTestService({ transport: 'in-process', clock, workers: false });
    merchant = await service.merchant('Reviews');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
    accountId = account.body.id;
    const flow = await merchant.sandbox.post('/v1/flows', { name: 'Hold for review', graph: reviewedGraph(accountId) });
    expect(flow.status, JSON.stringify(flow.body)).to.equal(201);
    const published = await merchant.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {});
    expect(published.status, JSON.stringify(published.body)).to.equal(200);
  });
  after(async () => {
    await service?.stop();
  });

  it('publishing refuses a review node whose exits lead nowhere, naming each port', async () => {
    const graph = { nodes: [node('trigger', 'trigger'), node('hold', 'review')], edges: [edge('trigger', 'hold')] };
    const flow = await merchant.sandbox.post('/v1/flows', { name: 'Open review', graph });
    expect(flow.status, JSON.stringify(flow.body)).to.equal(201);
    const refused = await merchant.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {});
    expect(refused.status).to.equal(422);
    const text = JSON.stringify(refused.body.error);
    expect(text).to.match(/Port approved of node hold \(review\) leads nowhere/);
    expect(text).to.match(/Port declined of node hold \(review\) leads nowhere/);
  });

  it('holds the payment processing with review pending, calling no acquirer, until the merchant approves; then the flow charges once', async () => {
    const payment = await held();
    expect(payment.status).to.equal('processing');
    expect(payment.review).to.include({ status: 'pending', nodeId: 'hold' });
    expect(payment.attempts).to.deep.equal([]);
    const view = (await merchant.sandbox.get(`/v1/payments/${payment.id}`)).body;
    expect(view.review.status).to.equal('pending');
    expect(view.flowExecution.waitingFor).to.include({ kind: 'review_decision', nodeId: 'hold' });

    clock.advance(90_000);
    const decided = await review(payment.id, { decision: 'approve', note: 'Called the buyer.' });
    expect(decided.status, JSON.stringify(decided.body)).to.equal(201);
    expect(decided.body.status).to.equal('captured');
    expect(decided.body.review).to.include({ status: 'approved', note: 'Called the buyer.', decidedAt: clock.now().toISOString() });
    expect(decided.body.attempts).to.have.length(1);

    const again = await review(payment.id, { decision: 'decline' });
    expect(again.status).to.equal(409);
    expect(again.body.error.code).to.equal('invalid_state');

    const done = (await merchant.sandbox.get(`/v1/payments/${payment.id}`)).body;
    expect(done.flowExecution.steps.map((s: any) => [s.nodeId, s.port])).to.deep.equal([
      ['trigger', 'next'],
      ['hold', 'approved'],
      ['charge', 'approved'],
      ['approve', null],
    ]);
    const waited = done.flowExecution.steps[1];
    expect(Date.parse(waited.endedAt) - Date.parse(waited.startedAt)).to.equal(90_000);
    expect(await eventTypes(payment.id)).to.deep.equal(['payment.captured']);
  });

  it('a decline leads the flow on by the declined exit: failed, declined by the flow, no acquirer called', async () => {
    const payment = await held();
    const decided = await review(payment.id, { decision: 'decline' });
    expect(decided.status, JSON.stringify(decided.body)).to.equal(201);
    expect(decided.body.status).to.equal('failed');
    expect(decided.body.review.status).to.equal('declined');
    expect(decided.body.error.code).to.equal('declined_by_flow');
    expect(decided.body.attempts).to.deep.equal([]);
    expect(await eventTypes(payment.id)).to.deep.equal(['payment.failed']);
  });

  it('two concurrent decisions: one wins, the other is 409, and the acquirer is called once', async () => {
    const payment = await held();
    const answers = await Promise.all([review(payment.id, { decision: 'approve' }), review(payment.id, { decision: 'decline' })]);
    expect(answers.map((a) => a.status).sort()).to.deep.equal([201, 409]);
    const winner = answers.find((a) => a.status === 201)!.body;
    const stored = (await merchant.sandbox.get(`/v1/payments/${payment.id}`)).body;
    expect(stored.status).to.equal(winner.status);
    expect(stored.flowExecution.steps.filter((s: any) => s.nodeId === 'hold')).to.have.length(1);
    expect(stored.attempts.length).to.be.at.most(1);
  });

  it('bad input changes nothing: a note over 500 characters is 422, a payment not in review is 409, an unknown one 404', async () => {
    const payment = await held();
    const long = await review(payment.id, { decision: 'approve', note: 'x'.repeat(501) });
    expect(long.status).to.equal(422);
    expect(long.body.error).to.include({ code: 'validation_failed', param: 'body.note' });
    const wrong = await review(payment.id, { decision: 'maybe' });
    expect(wrong.status).to.equal(422);
    expect((await merchant.sandbox.get(`/v1/payments/${payment.id}`)).body.review.status).to.equal('pending');

    const decided = await review(payment.id, { decision: 'approve' });
    expect(decided.status).to.equal(201);
    const notInReview = await review(payment.id, { decision: 'approve' });
    expect(notInReview.status).to.equal(409);
    expect(notInReview.body.error.message).to.match(/not held at a review step/);
    const missing = await review('pay_doesnotexist', { decision: 'approve' });
    expect(missing.status).to.equal(404);
  });

  it('a review pending survives a restart: another service on the same database takes the decision', async () => {
    const payment = await held();
    const other = await startTestService({ transport: 'in-process', clock, workers: false, joining: service });
    try {
      const decided = await other.client(merchant.sandboxKey).post(`/v1/payments/${payment.id}/review`, { decision: 'approve' });
      expect(decided.status, JSON.stringify(decided.body)).to.equal(201);
      expect(decided.body.status).to.equal('captured');
    } finally {
      await other.stop();
    }
    const stored = (await merchant.sandbox.get(`/v1/payments/${payment.id}`)).body;
    expect(stored.status).to.equal('captured');
    expect(stored.attempts).to.have.length(1);
  });
});
