import { expect } from 'chai';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import type { ProductServices } from '../../../infrastructure/main/modules';
import { node, edge } from '../../support/builders/flow-graph.builder';

const MINUTE = 60_000;
const card = { token: 'tok_sandbox_approved', brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030 };

/** trigger -> delay(minutes) -> acquirer -> approve / decline. */
const delayedGraph = (accountId: string, minutes: number) => ({
  nodes: [node('trigger', 'trigger'), node('wait', 'delay', { minutes }), node('charge', 'acquirer', { connectorAccountId: accountId }), node('approve', 'approve'), node('decline', 'decline')],
  edges: [edge('trigger', 'wait'), edge('wait', 'charge'), edge('charge', 'approve', 'approved'), edge('charge', 'decline', 'declined')],
});

/**
 * A flow run that waits on a durable timer (a delay node): the payment is answered processing with the wait in its
 * execution, the wait is a row claimed by one worker when due, and the run resumes once through ResumeFlowRun.
 */
describe('flow runs waiting on durable timers (delay node; PostgreSQL, sandbox over gRPC)', function () {
  this.timeout(60_000);
  const clock = new ManualClock(new Date('2026-11-26T12:00:00.000Z'));
  let service: TestService<ProductServices>;
  let merchant: Merchant;
  let accountId: string;

  const attemptsOf = async (paymentId: string) => (await merchant.sandbox.get(`/v1/payments/${paymentId}`)).body.attempts as unknown[];
  const eventTypes = async (paymentId: string) =>
    (await service.core.orm.em.fork({ useContext: false }).execute<Array<{ type: string }>>('select type from events where object_id = ? order by sequence nulls last, id', [paymentId])).map((r) => r.type);

  before(async () => {
    // Background workers off: the test plays the workers, so it decides when a wait is claimed and by how many.
    service = await startTestService({ transport: 'in-process', clock, workers: false });
    merchant = await service.merchant('Timers');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
    accountId = account.body.id;
    const flow = await merchant.sandbox.post('/v1/flows', { name: 'Charge later', graph: delayedGraph(accountId, 10) });
    expect(flow.status, JSON.stringify(flow.body)).to.equal(201);
    const published = await merchant.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {});
    expect(published.status, JSON.stringify(published.body)).to.equal(200);
  });
  after(async () => {
    await service?.stop();
  });

  it('a delay out of bounds is refused at publishing, naming the node', async () => {
    const flow = await merchant.sandbox.post('/v1/flows', { name: 'Too long', graph: delayedGraph(accountId, 43_201) });
    const refused = await merchant.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {});
    expect(refused.status).to.equal(422);
    expect(JSON.stringify(refused.body.error)).to.match(/minutes is a whole number from 1 to 43200/);
  });

  it('waits processing until the timer is due, then two workers racing resume it once: one call, captured once', async () => {
    const created = await merchant.sandbox.post('/v1/payments', { amount: 4_200, card });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.status).to.equal('processing');
    expect(created.body.attempts).to.deep.equal([]);
    const view = (await merchant.sandbox.get(`/v1/payments/${created.body.id}`)).body;
    expect(view.flowExecution.status).to.equal('waiting');
    expect(view.flowExecution.waitingFor).to.include({ kind: 'timer', nodeId: 'wait', dueAt: new Date(clock.now().getTime() + 10 * MINUTE).toISOString() });

    const waits = service.services.flowRunWaits;
    expect(await waits.claim(10), 'nothing is due before its time').to.deep.equal([]);
    clock.advance(10 * MINUTE + 1_000);

    // Two workers claim at once: the row goes to one of them.
    const [first, second] = await Promise.all([waits.claim(10), waits.claim(10)]);
    const claimed = [...first, ...second];
    expect(claimed.map((w) => w.paymentId)).to.deep.equal([created.body.id]);
    // And two resumptions of the same claimed wait (a worker retrying, a second one past the lease): one resumes it.
    const fired = await Promise.all([waits.fire(claimed[0]!), waits.fire(claimed[0]!)]);
    expect(fired.filter(Boolean)).to.have.length(1);

    const done = (await merchant.sandbox.get(`/v1/payments/${created.body.id}`)).body;
    expect(done.status).to.equal('captured');
    expect(await attemptsOf(created.body.id)).to.have.length(1);
    expect(done.flowExecution.steps.map((s: any) => [s.nodeId, s.port])).to.deep.equal([
      ['trigger', 'next'],
      ['wait', 'next'],
      ['charge', 'approved'],
      ['approve', null],
    ]);
    const waited = done.flowExecution.steps[1];
    expect(Date.parse(waited.endedAt) - Date.parse(waited.startedAt)).to.be.at.least(10 * MINUTE);
    expect(await eventTypes(created.body.id)).to.deep.equal(['payment.captured']);
    expect(await waits.claim(10), 'the wait is gone once resumed').to.deep.equal([]);
  });

  it('the wait survives a restart of the process: another service on the same database resumes it', async () => {
    const created = await merchant.sandbox.post('/v1/payments', { amount: 1_700, card });
    expect(created.body.status).to.equal('processing');
    const other = await startTestService({ transport: 'in-process', clock, workers: false, joining: service });
    try {
      clock.advance(10 * MINUTE + 1_000);
      const claimed = await other.services.flowRunWaits.claim(10);
      expect(claimed.map((w) => w.paymentId)).to.include(created.body.id);
      for (const wait of claimed) expect(await other.services.flowRunWaits.fire(wait)).to.equal(true);
    } finally {
      await other.stop();
    }
    expect((await merchant.sandbox.get(`/v1/payments/${created.body.id}`)).body.status).to.equal('captured');
  });
});
