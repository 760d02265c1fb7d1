import { expect } from 'chai';
import { startTestService, startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { RecoveryFaults } from '../../support/recovery-faults';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { IDENTITY_MODULE } from '../../../infrastructure/main/identity.module';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { FLOWS_MODULE } from '../../../infrastructure/main/flows.module';
import { paymentsModule, type PaymentsServices } from '../../../infrastructure/main/payments.module';
import { moduleList } from '../../../infrastructure/main/module';
import type { ProductServices } from '../../../infrastructure/main/modules';
import { node, edge, screeningGraph } from '../../support/builders/flow-graph.builder';



const publish = async (m: Merchant, name: string, graph: unknown) => {
  const flow = await m.sandbox.post('/v1/flows', { name, graph });
  expect(flow.status, JSON.stringify(flow.body)).to.equal(201);
  const published = await m.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {});
  expect(published.status, JSON.stringify(published.body)).to.equal(200);
};

/**
 * One way to advance a run (application/payments/run-advance.ts): a flow's antifraud node before the acquirer is
 * called the same way whether the run starts at creation, at a checkout's confirmation or for a Pix charge.
 */
describe('one way to advance a run: node calls before the acquirer on every path (PostgreSQL, sandbox over gRPC)', function () {
  this.timeout(120_000);
  let service: TestService<ProductServices>;
  let m: Merchant;

  const eventTypes = async (paymentId: string) =>
    (
      await service.core.orm.em
        .fork({ useContext: false })
        .execute<Array<{ type: string }>>("select type from events where data->'object'->>'paymentId' = ? or object_id = ? order by sequence nulls last, id", [paymentId, paymentId])
    ).map((e) => e.type);

  before(async () => {
    service = await startTestService({ transport: 'in-process', workers: false });
    m = await service.merchant('Run advance');
    const acquirer = await m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
    const antifraud = await m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox-antifraud', name: 'af', credentials: { merchantId: 'm1', apiKey: 'k1' } });
    expect(antifraud.status, JSON.stringify(antifraud.body)).to.equal(201);
    await publish(m, 'Screen first', screeningGraph(antifraud.body.id, acquirer.body.id));
  });
  after(async () => {
    await service?.stop();
  });

  it('a checkout payment confirmed through a flow with an antifraud node before the acquirer is screened, then charged', async () => {
    const created = await m.sandbox.post('/v1/payments', { amount: 3_000 });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.status).to.equal('requires_payment_method');
    const confirmed = await m.sandbox.post(`/v1/payments/${created.body.id}/confirm`, { card: { token: 'tok_sandbox_approved' } });
    expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(201);
    expect(confirmed.body.status).to.equal('captured');
    const view = (await m.sandbox.get(`/v1/payments/${created.body.id}`)).body;
    expect(view.flowExecution.steps.map((s: any) => [s.nodeId, s.port])).to.deep.include(['screen', 'approve']);
    expect(await eventTypes(created.body.id)).to.include.members(['antifraud.assessment_completed', 'payment.captured']);
  });

  it('a checkout payment whose antifraud verdict declines ends failed without an acquirer call', async () => {
    const created = await m.sandbox.post('/v1/payments', { amount: 3_000 });
    const confirmed = await m.sandbox.post(`/v1/payments/${created.body.id}/confirm`, { card: { token: 'tok_sandbox_antifraud_decline' } });
    expect(confirmed.body.status, JSON.stringify(confirmed.body)).to.equal('failed');
    expect(confirmed.body.attempts).to.deep.equal([]);
  });

  it('a Pix payment through a flow with an antifraud node before the acquirer is screened, then its charge issued', async () => {
    const payer = await m.sandbox.post('/v1/customers', { name: 'Paula Pagadora', document: '52998224725' });
    const pix = await m.sandbox.post('/v1/payments', { amount: 4_500, methodType: 'pix', customerId: payer.body.id });
    expect(pix.status, JSON.stringify(pix.body)).to.equal(201);
    expect(pix.body.status).to.equal('requires_action');
    expect(pix.body.nextAction.type).to.equal('pix');
    const view = (await m.sandbox.get(`/v1/payments/${pix.body.id}`)).body;
    expect(view.flowExecution.steps.map((s: any) => [s.nodeId, s.port])).to.deep.include(['screen', 'approve']);
    expect(view.flowExecution.waitingFor).to.include({ kind: 'bank_notice', nodeId: 'charge' });
    expect(await eventTypes(pix.body.id)).to.include('antifraud.assessment_completed');
  });

  it('a voided Pix ends its flow run canceled with the payment, its wait row released in the same transaction', async () => {
    const payer = await m.sandbox.post('/v1/customers', { name: 'Paula Pagadora', document: '52998224725' });
    const pix = await m.sandbox.post('/v1/payments', { amount: 4_600, methodType: 'pix', customerId: payer.body.id });
    expect(pix.body.status, JSON.stringify(pix.body)).to.equal('requires_action');
    const voided = await m.sandbox.post(`/v1/payments/${pix.body.id}/void`, { reason: 'order canceled' });
    expect(voided.status, JSON.stringify(voided.body)).to.equal(201);
    expect(voided.body.status).to.equal('canceled');
    const run = (await m.sandbox.get(`/v1/payments/${pix.body.id}`)).body.flowExecution;
    expect(run, JSON.stringify(run)).to.deep.include({ status: 'ended', waitingFor: null });
    expect(run.outcome).to.include({ result: 'canceled', reason: 'voided', nodeId: 'charge' });
    const waits = await service.core.orm.em.fork({ useContext: false }).execute('select 1 from flow_run_waits where payment_id = ?', [pix.body.id]);
    expect(waits).to.deep.equal([]);
  });
});

const DEADLINE_MS = 400;
const GRACE_MS = 5_000;

/**
 * Crash recovery runs what the request path runs: an acquirer call made after a resumed run's node call is saved
 * under a routing lease (so recovery finds it), and a capture node after the approval is run by recovery too.
 */
describe('one way to advance a run: recovery of calls after a resume and of a capture node (PostgreSQL, sandbox over gRPC)', function () {
  this.timeout(120_000);
  let service: TestService<PaymentsServices>;
  let clock: ManualClock;
  let faults: RecoveryFaults;
  let m: Merchant;
  let accountId: string;

  const routingRow = async (id: string) =>
    (await service.core.orm.em.fork({ useContext: false }).execute<Array<{ intents: any; lease_owner: string }>>('select intents, lease_owner from payment_routings where payment_id = ?', [id]))[0];

  before(async () => {
    clock = new ManualClock(new Date('2026-06-01T12:00:00.000Z'));
    faults = new RecoveryFaults();
    service = await startTestServiceWith(
      moduleList().with(IDENTITY_MODULE).with(FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule({ decorateConnectors: faults.decorate, recoveryGraceMs: GRACE_MS, recoveryScanIntervalMs: 3_600_000, expiryScanIntervalMs: 3_600_000 })),
      { transport: 'in-process', clock, config: { connectorDeadlineMs: DEADLINE_MS } },
    );
    m = await service.merchant('Recovered runs');
    const account = await m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm_rec', apiKey: 'k1' } });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
    accountId = account.body.id;
  });
  after(async () => {
    await service?.stop();
  });

  it('a run resumed by a review decision calls a zero_auth node, then the acquirer; interrupted there, recovery finishes it once', async () => {
    await publish(m, 'Review then verify', {
      nodes: [node('trigger', 'trigger'), node('hold', 'review'), node('verify', 'zero_auth', { connectorAccountId: accountId }), node('charge', 'acquirer', { connectorAccountId: accountId }), node('approve', 'approve'), node('decline', 'decline'), node('refuse', 'decline')],
      edges: [
        edge('trigger', 'hold'),
        edge('hold', 'verify', 'approved'),
        edge('hold', 'refuse', 'declined'),
        edge('verify', 'charge', 'valid'),
        { ...edge('verify', 'refuse', 'invalid'), id: 'verify-invalid' },
        { ...edge('verify', 'refuse', 'unavailable'), id: 'verify-unavailable' },
        edge('charge', 'approve', 'approved'),
        edge('charge', 'decline', 'declined'),
      ],
    });
    const held = await m.sandbox.post('/v1/payments', { amount: 7_000, card: { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111' } });
    expect(held.body.review, JSON.stringify(held.body)).to.include({ status: 'pending' });

    const crash = faults.crashAfterNextCall(accountId);
    const decided = m.sandbox.post(`/v1/payments/${held.body.id}/review`, { decision: 'approve' });
    decided.catch(() => undefined);
    const call = await crash.reached;
    expect(call.paymentId).to.equal(held.body.id);
    // The call's attempt id was saved under a routing lease before it was sent: recovery can find the payment.
    const routing = await routingRow(held.body.id);
    expect(routing, 'routing row of the call after the node').to.not.equal(undefined);
    expect(routing!.intents.map((i: any) => i.attemptId)).to.deep.equal([call.key]);

    clock.advance(GRACE_MS + 1);
    expect(await service.services.paymentRecovery.run()).to.equal(1);
    const view = (await m.sandbox.get(`/v1/payments/${held.body.id}`)).body;
    expect(view).to.include({ status: 'captured', capturedAmount: 7_000 });
    expect(view.attempts.map((a: any) => a.id)).to.deep.equal([call.key]);
    expect(faults.callsWithKey(call.key)).to.equal(2);
    expect(view.flowExecution.steps.map((s: any) => [s.nodeId, s.port])).to.deep.include(['verify', 'valid']);
    crash.release();
    await decided;
    expect((await m.sandbox.get(`/v1/payments/${held.body.id}`)).body.attempts).to.have.length(1);
  });

  it("a manual-capture authorization recovered after a crash is captured at the flow's capture node, as the request would have", async () => {
    await publish(m, 'Capture at once', {
      nodes: [node('trigger', 'trigger'), node('charge', 'acquirer', { connectorAccountId: accountId }), node('cap', 'capture'), node('approve', 'approve'), node('decline', 'decline')],
      edges: [edge('trigger', 'charge'), edge('charge', 'cap', 'approved'), edge('charge', 'decline', 'declined'), edge('cap', 'approve')],
    });
    const crash = faults.crashAfterNextCall(accountId);
    const response = m.sandbox.post('/v1/payments', { amount: 8_000, captureMethod: 'manual', card: { token: 'tok_sandbox_approved', brand: 'visa' } });
    response.catch(() => undefined);
    const call = await crash.reached;
    clock.advance(GRACE_MS + 1);
    expect(await service.services.paymentRecovery.run()).to.equal(1);
    const view = (await m.sandbox.get(`/v1/payments/${call.paymentId}`)).body;
    expect(view).to.include({ status: 'captured', capturedAmount: 8_000 });
    crash.release();
    await response;
  });
});
