import { expect } from 'chai';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import type { ProductServices } from '../../../infrastructure/main/modules';
import { edge, node, screeningGraph } from '../../support/builders/flow-graph.builder';

const card = (token: string) => ({ token, brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030 });


/** Antifraud, zero_auth and capture nodes run by real payments on PostgreSQL, the sandbox adapters over gRPC. */
describe('flow runs through antifraud, zero_auth and capture nodes (PostgreSQL, sandbox over gRPC)', function () {
  this.timeout(90_000);
  let service: TestService<ProductServices>;

  const events = async (paymentId: string) =>
    service.core.orm.em
      .fork({ useContext: false })
      .execute<Array<{ type: string; data: any }>>("select type, data from events where data->'object'->>'paymentId' = ? or object_id = ? order by sequence nulls last, id", [paymentId, paymentId]);

  const accounts = async (m: Merchant) => {
    const acquirer = await m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
    const antifraud = await m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox-antifraud', name: 'af', credentials: { merchantId: 'm1', apiKey: 'k1' } });
    expect(antifraud.status, JSON.stringify(antifraud.body)).to.equal(201);
    return { acquirerId: acquirer.body.id as string, antifraudId: antifraud.body.id as string };
  };
  const publish = async (m: Merchant, name: string, graph: unknown) => {
    const flow = await m.sandbox.post('/v1/flows', { name, graph });
    expect(flow.status, JSON.stringify(flow.body)).to.equal(201);
    return m.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {});
  };

  before(async () => {
    service = await startTestService({ transport: 'in-process', workers: false });
  });
  after(async () => {
    await service?.stop();
  });

  it('antifraud: each verdict leaves by its exit, with an assessment of origin flow_node and its event', async () => {
    const m = await service.merchant('Screening');
    const { acquirerId, antifraudId } = await accounts(m);
    const published = await publish(m, 'Screen', screeningGraph(antifraudId, acquirerId));
    expect(published.status, JSON.stringify(published.body)).to.equal(200);

    const approved = await m.sandbox.post('/v1/payments', { amount: 2_500, card: card('tok_sandbox_approved') });
    expect(approved.body.status, JSON.stringify(approved.body)).to.equal('captured');
    const approvedEvents = await events(approved.body.id);
    expect(approvedEvents.map((e) => e.type)).to.deep.equal(['antifraud.assessment_completed', 'payment.captured']);
    expect(approvedEvents[0]!.data.object).to.deep.include({
      object: 'antifraud_assessment', paymentId: approved.body.id, origin: 'flow_node', provider: 'sandbox-antifraud', providerStatus: null, recommendation: 'approve', score: 12, connectorAccountId: antifraudId,
    });
    const view = (await m.sandbox.get(`/v1/payments/${approved.body.id}`)).body;
    expect(view.flowExecution.steps.map((s: any) => [s.nodeId, s.port])).to.deep.include(['screen', 'approve']);

    const declined = await m.sandbox.post('/v1/payments', { amount: 2_500, card: card('tok_sandbox_antifraud_decline') });
    expect(declined.body.status).to.equal('failed');
    const declinedEvents = await events(declined.body.id);
    expect(declinedEvents.map((e) => e.type)).to.deep.equal(['antifraud.assessment_completed', 'payment.failed']);
    expect(declinedEvents[0]!.data.object).to.deep.include({ origin: 'flow_node', recommendation: 'decline', score: 97, providerStatus: null });
    expect(declinedEvents[0]!.data.object.triggeredRules).to.deep.equal(['SANDBOX_DECLINE_TOKEN', 'HIGH_RISK_SCORE']);
    expect(declined.body.attempts).to.deep.equal([]);

    const held = await m.sandbox.post('/v1/payments', { amount: 2_500, card: card('tok_sandbox_antifraud_review') });
    expect(held.body.status).to.equal('processing');
    expect(held.body.review).to.deep.include({ status: 'pending' });
    expect((await events(held.body.id)).map((e) => e.data.object.recommendation)).to.deep.equal(['review']);
  });

  it('antifraud: a provider that cannot be reached is the error exit, with an error assessment (skipped analyses are reported too)', async () => {
    const m = await service.merchant('Screening down');
    const acquirer = await m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
    const antifraud = await m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox-antifraud', name: 'af', credentials: { merchantId: 'm1', apiKey: 'unreachable' }, verify: false });
    expect(antifraud.status, JSON.stringify(antifraud.body)).to.equal(201);
    expect((await publish(m, 'Screen', screeningGraph(antifraud.body.id, acquirer.body.id))).status).to.equal(200);
    const payment = await m.sandbox.post('/v1/payments', { amount: 2_500, card: card('tok_sandbox_approved') });
    expect(payment.body.status).to.equal('failed');
    const list = await events(payment.body.id);
    expect(list.map((e) => e.type)).to.deep.equal(['antifraud.assessment_completed', 'payment.failed']);
    expect(list[0]!.data.object).to.deep.include({ origin: 'flow_node', recommendation: 'error', score: null, providerStatus: null });
  });

  it('publishing names each fault: an acquirer in an antifraud node, unwired exits, a capture before any authorization', async () => {
    const m = await service.merchant('Screening faults');
    const { acquirerId, antifraudId } = await accounts(m);
    const refused = await publish(m, 'Bad', {
      nodes: [node('trigger', 'trigger'), node('screen', 'antifraud', { connectorAccountId: acquirerId }), node('verify', 'zero_auth', { connectorAccountId: antifraudId }), node('cap', 'capture'), node('charge', 'acquirer', { connectorAccountId: acquirerId }), node('approve', 'approve'), node('decline', 'decline')],
      edges: [edge('trigger', 'screen'), edge('screen', 'verify', 'approve'), edge('verify', 'cap', 'valid'), edge('cap', 'charge'), edge('charge', 'approve', 'approved'), edge('charge', 'decline', 'declined')],
    });
    expect(refused.status).to.equal(422);
    const messages: string[] = refused.body.error.details.map((d: any) => d.message);
    expect(messages.some((s) => s.includes('which is not an antifraud account'))).to.equal(true, messages.join('\n'));
    expect(messages.some((s) => s.includes('Port review of node screen'))).to.equal(true, 'review exit unwired');
    expect(messages.some((s) => s.includes('Port error of node screen'))).to.equal(true, 'error exit unwired');
    expect(messages.some((s) => s.includes(`Node verify names connector account ${antifraudId}, which is not an acquirer`))).to.equal(true, 'zero_auth at an antifraud account');
    expect(messages.some((s) => s.includes('Port invalid of node verify'))).to.equal(true, 'invalid exit unwired');
    expect(messages.some((s) => s.includes('Capture node cap is reached from verify (valid) before any authorization'))).to.equal(true, 'capture first');
  });

  it('zero_auth: the card verified at the node account, payment_method.verified, then charged by the valid exit', async () => {
    const m = await service.merchant('Verifying');
    const { acquirerId } = await accounts(m);
    const published = await publish(m, 'Verify', {
      nodes: [node('trigger', 'trigger'), node('verify', 'zero_auth', { connectorAccountId: acquirerId }), node('charge', 'acquirer', { connectorAccountId: acquirerId }), node('approve', 'approve'), node('decline', 'decline'), node('bad', 'decline')],
      edges: [edge('trigger', 'verify'), edge('verify', 'charge', 'valid'), edge('verify', 'bad', 'invalid'), edge('verify', 'decline', 'unavailable'), edge('charge', 'approve', 'approved'), edge('charge', 'decline', 'declined')],
    });
    expect(published.status, JSON.stringify(published.body)).to.equal(200);
    const valid = await m.sandbox.post('/v1/payments', { amount: 1_000, card: card('tok_sandbox_approved') });
    expect(valid.body.status).to.equal('captured');
    const validEvents = await events(valid.body.id);
    expect(validEvents.map((e) => e.type)).to.deep.equal(['payment_method.verified', 'payment.captured']);
    expect(validEvents[0]!.data.object).to.deep.include({ object: 'payment_method_verification', paymentId: valid.body.id, nodeId: 'verify', connectorAccountId: acquirerId });
    expect(validEvents[0]!.data.object.verification.status).to.equal('valid');

    const invalid = await m.sandbox.post('/v1/payments', { amount: 1_000, card: card('tok_sandbox_stolen_card') });
    expect(invalid.body.status).to.equal('failed');
    const invalidEvents = await events(invalid.body.id);
    expect(invalidEvents.map((e) => e.type)).to.deep.equal(['payment_method.verified', 'payment.failed']);
    expect(invalidEvents[0]!.data.object.verification.status).to.equal('invalid');
    expect(invalid.body.attempts).to.deep.equal([]);
  });

  it('antifraud after a wait: a review decision resumes the run into the antifraud node, which the resumption calls', async () => {
    const m = await service.merchant('Screening after review');
    const { acquirerId, antifraudId } = await accounts(m);
    const published = await publish(m, 'Review then screen', {
      nodes: [node('trigger', 'trigger'), node('hold', 'review'), node('screen', 'antifraud', { connectorAccountId: antifraudId }), node('charge', 'acquirer', { connectorAccountId: acquirerId }), node('approve', 'approve'), node('decline', 'decline')],
      edges: [
        edge('trigger', 'hold'), edge('hold', 'screen', 'approved'), edge('hold', 'decline', 'declined'),
        edge('screen', 'charge', 'approve'), { ...edge('screen', 'decline', 'review'), id: 'r' }, { ...edge('screen', 'decline', 'decline'), id: 'd' }, { ...edge('screen', 'decline', 'error'), id: 'e' },
        edge('charge', 'approve', 'approved'), edge('charge', 'decline', 'declined'),
      ],
    });
    expect(published.status, JSON.stringify(published.body)).to.equal(200);
    const created = await m.sandbox.post('/v1/payments', { amount: 4_000, card: card('tok_sandbox_approved') });
    expect(created.body.status).to.equal('processing');
    const decided = await m.sandbox.post(`/v1/payments/${created.body.id}/review`, { decision: 'approve' });
    expect(decided.body.status, JSON.stringify(decided.body)).to.equal('captured');
    expect((await events(created.body.id)).map((e) => e.type)).to.deep.equal(['antifraud.assessment_completed', 'payment.captured']);
  });

  it('capture: approved -> capture -> approve captures a manual-capture authorization in full', async () => {
    const m = await service.merchant('Capturing');
    const { acquirerId } = await accounts(m);
    const published = await publish(m, 'Capture', {
      nodes: [node('trigger', 'trigger'), node('charge', 'acquirer', { connectorAccountId: acquirerId }), node('cap', 'capture'), node('approve', 'approve'), node('decline', 'decline')],
      edges: [edge('trigger', 'charge'), edge('charge', 'cap', 'approved'), edge('charge', 'decline', 'declined'), edge('cap', 'approve')],
    });
    expect(published.status, JSON.stringify(published.body)).to.equal(200);
    const payment = await m.sandbox.post('/v1/payments', { amount: 3_000, captureMethod: 'manual', card: card('tok_sandbox_approved') });
    expect(payment.body.status, JSON.stringify(payment.body)).to.equal('captured');
    expect(payment.body.capturedAmount).to.equal(3_000);
    expect((await events(payment.body.id)).map((e) => e.type)).to.deep.equal(['payment.authorized', 'payment.captured']);
  });
});
