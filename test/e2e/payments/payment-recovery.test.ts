import { expect } from 'chai';
import { eventually } from '../../support/eventually';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { RecoveryFaults } from '../../support/recovery-faults';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { IDENTITY_MODULE } from '../../../infrastructure/main/identity.module';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { FLOWS_MODULE } from '../../../infrastructure/main/flows.module';
import { paymentsModule } from '../../../infrastructure/main/payments.module';
import type { RecoverStuckPayments } from '../../../application/payments/recover-stuck-payments';
import { moduleList } from '../../../infrastructure/main/module';
import type { PaymentsServices } from '../../../infrastructure/main/payments.module';

const DEADLINE_MS = 400;
const GRACE_MS = 5_000;

interface Harness {
  service: TestService<PaymentsServices>;
  clock: ManualClock;
  faults: RecoveryFaults;
}

async function startHarness(scanIntervalMs: number): Promise<Harness> {
  const clock = new ManualClock(new Date('2026-06-01T12:00:00.000Z'));
  const faults = new RecoveryFaults();
  const service = await startTestServiceWith(moduleList().with(IDENTITY_MODULE).with(FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule({ decorateConnectors: faults.decorate, recoveryGraceMs: GRACE_MS, recoveryScanIntervalMs: scanIntervalMs, expiryScanIntervalMs: 3_600_000 })), {
    transport: 'in-process',
    clock,
    config: { connectorDeadlineMs: DEADLINE_MS },
  });
  return { service, clock, faults };
}

function helpers(h: () => Harness) {
  const sql = <T>(query: string, params: unknown[] = []) => h().service.core.orm.em.fork({ useContext: false }).execute<T[]>(query, params);
  return {
    sql,
    eventTypes: async (id: string) =>
      (await sql<{ type: string }>('select type from events where object_id = ? order by sequence nulls last, id', [id])).map((r) => r.type),
    routingRow: async (id: string) => (await sql<{ intents: any; lease_owner: string }>('select intents, lease_owner from payment_routings where payment_id = ?', [id]))[0],
    account: async (client: Merchant['sandbox'], name: string, costBasisPoints: number) => {
      const r = await client.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name, credentials: { merchantId: `m_${name}_${Math.random().toString(36).slice(2)}`, apiKey: 'k1' }, costBasisPoints });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return r.body.id as string;
    },
  };
}

/**
 * POST /v1/payments saves the first attempt's id with the payment (tx1) and every fallback's id before its call;
 * a process that dies before tx2 leaves the payment `processing` with its routing lease. Past the grace period the
 * recovery worker re-sends Authorize with the SAME attempt id and records the outcome and events once.
 */
describe('payment recovery: a crash between the two transactions of POST /v1/payments', function () {
  this.timeout(60_000);
  let h: Harness;
  let recovery: RecoverStuckPayments;
  const { sql, eventTypes, routingRow, account } = helpers(() => h);

  before(async () => {
    h = await startHarness(3_600_000); // the test drives the worker's scan itself
    recovery = h.service.services.paymentRecovery;
  });
  after(async () => {
    await h?.service.stop();
  });

  /** Starts a payment whose process "dies" right after the connector answered (the answer never reaches tx2). */
  const crashDuring = async (merchant: Merchant, body: Record<string, unknown>) => {
    const crash = h.faults.crashAfterNextCall();
    const response = merchant.sandbox.post('/v1/payments', body);
    response.catch(() => undefined);
    const call = await crash.reached;
    return { call, response, release: crash.release };
  };

  it('is a worker of the payments module (runs in the worker role and embedded mode)', () => {
    const names = h.service.service.modules.flatMap((m) => m.workers ?? []).map((w) => w.name);
    expect(names).to.include('payment-recovery');
  });

  it('the normal path leaves no routing behind', async () => {
    const merchant = await h.service.merchant('Normal');
    await account(merchant.sandbox, 'only', 100);
    const r = await merchant.sandbox.post('/v1/payments', { amount: 1_000, card: { token: 'tok_sandbox_approved', brand: 'visa' } });
    expect(r.body.status).to.equal('captured');
    expect(await routingRow(r.body.id)).to.equal(undefined);
  });

  it('approved at the acquirer, then the process died: the worker captures it with the same attempt id, once', async () => {
    const merchant = await h.service.merchant('Crash approved');
    const accountId = await account(merchant.sandbox, 'primary', 100);
    const { call, response, release } = await crashDuring(merchant, { amount: 5_000, card: { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111' } });
    expect(call.output?.status).to.equal('approved');
    const paymentId = call.paymentId;

    // The intent was saved before the call; nothing else was.
    const routing = await routingRow(paymentId);
    expect(routing!.intents.map((i: any) => [i.attemptId, i.connectorAccountId])).to.deep.equal([[call.key, accountId]]);
    const stuck = await merchant.sandbox.get(`/v1/payments/${paymentId}`);
    expect(stuck.body).to.include({ status: 'processing' });
    expect(stuck.body.attempts).to.deep.equal([]);
    expect(await eventTypes(paymentId)).to.deep.equal([]);

    // Within the grace period the request still owns it.
    expect(await recovery.run()).to.equal(0);
    h.clock.advance(GRACE_MS + 1);

    // Two workers at once: exactly one resolves it.
    const counts = await Promise.all([recovery.run(), recovery.run()]);
    expect(counts[0] + counts[1]).to.equal(1);
    expect(await recovery.run()).to.equal(0);

    const view = (await merchant.sandbox.get(`/v1/payments/${paymentId}`)).body;
    expect(view).to.include({ status: 'captured', capturedAmount: 5_000, connectorAccountId: accountId });
    expect(view.attempts).to.have.length(1);
    expect(view.attempts[0]).to.include({ id: call.key, outcome: 'approved', connectorAccountId: accountId });
    // Same idempotency key -> the acquirer's original authorization, not a second one.
    expect(view.acquirer.acquirerPaymentId).to.equal((call.output as any).references.acquirerPaymentId);
    expect(h.faults.callsWithKey(call.key)).to.equal(2); // the dead request's call + one re-send
    expect(await eventTypes(paymentId)).to.deep.equal(['payment.captured']);
    expect(await routingRow(paymentId)).to.equal(undefined);

    // The "dead" request wakes up late: it no longer holds the lease, records nothing and answers the stored state.
    release();
    const late = await response;
    expect(late.status).to.equal(201);
    expect(late.body).to.include({ id: paymentId, status: 'captured' });
    expect(await eventTypes(paymentId)).to.deep.equal(['payment.captured']);
    expect((await merchant.sandbox.get(`/v1/payments/${paymentId}`)).body.attempts).to.have.length(1);
  });

  it('declined by the issuer, then the process died: the worker fails it with the decline (manual capture)', async () => {
    const merchant = await h.service.merchant('Crash declined');
    await account(merchant.sandbox, 'primary', 100);
    const { call, release } = await crashDuring(merchant, { amount: 2_000, captureMethod: 'manual', card: { token: 'tok_sandbox_insufficient_funds', brand: 'visa' } });
    h.clock.advance(GRACE_MS + 1);
    expect(await recovery.run()).to.equal(1);
    const view = (await merchant.sandbox.get(`/v1/payments/${call.paymentId}`)).body;
    expect(view.status).to.equal('failed');
    expect(view.decline).to.include({ reason: 'INSUFFICIENT_FUNDS', rawCode: '51' });
    expect(view.attempts.map((a: any) => [a.id, a.outcome])).to.deep.equal([[call.key, 'declined']]);
    expect(await eventTypes(call.paymentId)).to.deep.equal(['payment.failed']);
    release();
  });

  it('manual capture approved: the worker leaves it authorized (payment.authorized)', async () => {
    const merchant = await h.service.merchant('Crash manual');
    await account(merchant.sandbox, 'primary', 100);
    const { call, release } = await crashDuring(merchant, { amount: 3_000, captureMethod: 'manual', card: { token: 'tok_sandbox_approved', brand: 'visa' } });
    h.clock.advance(GRACE_MS + 1);
    expect(await recovery.run()).to.equal(1);
    const view = (await merchant.sandbox.get(`/v1/payments/${call.paymentId}`)).body;
    expect(view).to.include({ status: 'authorized', capturedAmount: 0 });
    expect(await eventTypes(call.paymentId)).to.deep.equal(['payment.authorized']);
    release();
  });

  it('technical failure on the saved attempt: the worker continues with the remaining account', async () => {
    const merchant = await h.service.merchant('Crash fallback');
    const broken = await account(merchant.sandbox, 'broken', 100);
    const backup = await account(merchant.sandbox, 'backup', 200);
    h.faults.failing.add(broken);
    const { call, release } = await crashDuring(merchant, { amount: 7_000, card: { token: 'tok_sandbox_approved', brand: 'visa' } });
    expect(call.accountId).to.equal(broken);
    h.clock.advance(GRACE_MS + 1);
    expect(await recovery.run()).to.equal(1);
    const view = (await merchant.sandbox.get(`/v1/payments/${call.paymentId}`)).body;
    expect(view).to.include({ status: 'captured', connectorAccountId: backup, hasFallback: true });
    expect(view.attempts.map((a: any) => [a.connectorAccountId, a.outcome])).to.deep.equal([
      [broken, 'technical_failure'],
      [backup, 'approved'],
    ]);
    expect(view.attempts[0].id).to.equal(call.key);
    expect(h.faults.calls.filter((c) => c.key === view.attempts[1].id)).to.have.length(1);
    expect(await eventTypes(call.paymentId)).to.deep.equal(['payment.captured']);
    release();
  });

  it("a payment routed by a published flow: the worker follows the flow's fallback order, not the accounts' cost, and records its steps", async () => {
    const merchant = await h.service.merchant('Crash in a flow');
    await account(merchant.sandbox, 'cheapest', 10); // direct routing would pick it; the flow never names it
    const first = await account(merchant.sandbox, 'first', 900);
    const second = await account(merchant.sandbox, 'second', 500);
    h.faults.failing.add(first);
    const at = { x: 0, y: 0 };
    const graph = {
      nodes: [
        { id: 'trigger', type: 'trigger', position: at },
        { id: 'main', type: 'acquirer', position: at, data: { connectorAccountId: first } },
        { id: 'backup', type: 'acquirer', position: at, data: { connectorAccountId: second } },
        { id: 'approve', type: 'approve', position: at },
      ],
      edges: [
        { source: 'trigger', target: 'main' },
        { source: 'main', target: 'backup', sourcePort: 'error' },
        { source: 'main', target: 'approve', sourcePort: 'approved' },
        { source: 'backup', target: 'approve', sourcePort: 'approved' },
      ],
    };
    const flow = await merchant.sandbox.post('/v1/flows', { name: 'Crash routing', graph });
    expect((await merchant.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {})).status).to.equal(200);

    const { call, release } = await crashDuring(merchant, { amount: 6_500, card: { token: 'tok_sandbox_approved', brand: 'visa' } });
    expect(call.accountId).to.equal(first);
    h.clock.advance(GRACE_MS + 1);
    expect(await recovery.run()).to.equal(1);
    const view = (await merchant.sandbox.get(`/v1/payments/${call.paymentId}`)).body;
    expect(view).to.include({ status: 'captured', connectorAccountId: second });
    expect(view.attempts.map((a: any) => [a.connectorAccountId, a.outcome])).to.deep.equal([
      [first, 'technical_failure'],
      [second, 'approved'],
    ]);
    expect(view.flowExecution.steps.map((s: any) => [s.nodeId, s.port])).to.deep.equal([['trigger', 'next'], ['main', 'error'], ['backup', 'approved'], ['approve', null]]);
    expect(await eventTypes(call.paymentId)).to.deep.equal(['payment.captured']);
    release();
  });

  it('no account left: the worker fails it with a routing stop reason', async () => {
    const merchant = await h.service.merchant('Crash exhausted');
    const broken = await account(merchant.sandbox, 'broken', 100);
    h.faults.failing.add(broken);
    const { call, release } = await crashDuring(merchant, { amount: 1_500, card: { token: 'tok_sandbox_approved', brand: 'visa' } });
    h.clock.advance(GRACE_MS + 1);
    expect(await recovery.run()).to.equal(1);
    const view = (await merchant.sandbox.get(`/v1/payments/${call.paymentId}`)).body;
    expect(view.status).to.equal('failed');
    expect(view.error).to.include({ code: 'connector_unavailable', stage: 'authorization' });
    expect(view.routing.stopReason).to.equal('all_accounts_failed');
    expect(view.attempts.map((a: any) => [a.id, a.outcome])).to.deep.equal([[call.key, 'technical_failure']]);
    expect(await eventTypes(call.paymentId)).to.deep.equal(['payment.failed']);
    release();
  });

  it('a worker that dies mid-recovery: its lease expires and another worker finishes', async () => {
    const merchant = await h.service.merchant('Worker crash');
    await account(merchant.sandbox, 'primary', 100);
    const { call, release } = await crashDuring(merchant, { amount: 4_400, card: { token: 'tok_sandbox_approved', brand: 'visa' } });
    h.clock.advance(GRACE_MS + 1);
    // A worker claims it and dies right after re-sending (its answer is lost too).
    const workerCrash = h.faults.crashAfterNextCall();
    const dying = recovery.run();
    dying.catch(() => undefined);
    expect((await workerCrash.reached).key).to.equal(call.key);
    expect(await recovery.run()).to.equal(0); // leased to the dying worker
    h.clock.advance(GRACE_MS + 1);
    expect(await recovery.run()).to.equal(1);
    expect((await merchant.sandbox.get(`/v1/payments/${call.paymentId}`)).body.status).to.equal('captured');
    workerCrash.release();
    expect(await dying).to.equal(0); // lost its lease: recorded nothing
    expect(await eventTypes(call.paymentId)).to.deep.equal(['payment.captured']);
    release();
  });

  it('the re-sent attempt times out: the worker falls back and queues the timed-out attempt for reconciliation', async () => {
    const merchant = await h.service.merchant('Crash timeout');
    const slow = await account(merchant.sandbox, 'slow', 100);
    const backup = await account(merchant.sandbox, 'backup', 200);
    h.faults.timingOut.add(slow);
    const { call, release } = await crashDuring(merchant, { amount: 2_500, captureMethod: 'manual', card: { token: 'tok_sandbox_approved', brand: 'visa' } });
    expect(call.error).to.exist;
    h.clock.advance(GRACE_MS + 1);
    expect(await recovery.run()).to.equal(1);
    const view = (await merchant.sandbox.get(`/v1/payments/${call.paymentId}`)).body;
    expect(view).to.include({ status: 'authorized', connectorAccountId: backup });
    expect(view.attempts.map((a: any) => [a.connectorAccountId, a.outcome, a.reconciliation?.status ?? null])).to.deep.equal([
      [slow, 'timeout', 'pending'],
      [backup, 'approved', null],
    ]);
    const queued = await sql<{ attempt_id: string; status: string }>('select attempt_id, status from payment_reconciliations where payment_id = ?', [call.paymentId]);
    expect(queued).to.deep.equal([{ attempt_id: call.key, status: 'pending' }]);
    expect(await eventTypes(call.paymentId)).to.deep.equal(['payment.authorized']);
    release();
  });

  it('an earlier saved attempt now approves while a later one had approved too: the later one is reconciled (refunded)', async () => {
    const merchant = await h.service.merchant('Crash double');
    const first = await account(merchant.sandbox, 'first', 100);
    const second = await account(merchant.sandbox, 'second', 200);
    h.faults.failing.add(first);
    // first fails technically, the request falls back to second, which approves (captures) and then the process dies.
    const crash = h.faults.crashAfterNextCall(second);
    merchant.sandbox.post('/v1/payments', { amount: 3_300, card: { token: 'tok_sandbox_approved', brand: 'visa' } }).catch(() => undefined);
    const call = await crash.reached;
    expect(call.output?.status).to.equal('approved');
    // first recovers before the worker runs: re-sent with its saved id, it now approves and decides.
    h.faults.failing.delete(first);
    h.clock.advance(GRACE_MS + 1);
    expect(await recovery.run()).to.equal(1);
    let view = (await merchant.sandbox.get(`/v1/payments/${call.paymentId}`)).body;
    expect(view).to.include({ status: 'captured', connectorAccountId: first });
    expect(view.attempts.map((a: any) => [a.connectorAccountId, a.outcome, a.reconciliation?.status ?? null])).to.deep.equal([
      [first, 'approved', null],
      [second, 'timeout', 'pending'],
    ]);
    expect(view.attempts[1].id).to.equal(call.key);
    // The second acquirer captured too: the reconciliation re-sends its key, finds the capture and refunds it.
    const reconcile = h.service.services.attemptReconciliation;
    expect(await reconcile.run()).to.equal(1);
    view = (await merchant.sandbox.get(`/v1/payments/${call.paymentId}`)).body;
    expect(view.attempts[1].reconciliation).to.include({ status: 'refunded', amount: 3_300 });
    expect(view.attempts[1].reconciliation.acquirerPaymentId).to.equal((call.output as any).references.acquirerPaymentId);
    expect(await eventTypes(call.paymentId)).to.deep.equal(['payment.captured']);
    crash.release();
  });

  it('stuck payments are resolved concurrently: a re-send waiting on its acquirer holds none of the others back', async () => {
    const merchant = await h.service.merchant('Crash concurrent');
    await account(merchant.sandbox, 'primary', 100);
    const card = { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111' };
    const first = await crashDuring(merchant, { amount: 1_100, card });
    const second = await crashDuring(merchant, { amount: 2_200, card });
    h.clock.advance(GRACE_MS + 1);
    const workerHeld = h.faults.crashAfterNextCall(); // the worker's first re-send waits after its answer
    const running = recovery.run();
    const waiting = await workerHeld.reached;
    const otherId = [first.call.paymentId, second.call.paymentId].find((id) => id !== waiting.paymentId)!;
    await eventually(async () => (await merchant.sandbox.get(`/v1/payments/${otherId}`)).body.status === 'captured', 5_000);
    workerHeld.release();
    expect(await running).to.equal(2);
    for (const dead of [first, second]) {
      dead.release();
      expect((await dead.response).body.status).to.equal('captured');
    }
  });

  it('no stuck payment is left behind by this suite', async () => {
    const rows = await sql<{ n: number }>("select count(*)::int as n from payments where status = 'processing'");
    expect(Number(rows[0]!.n)).to.equal(0);
  });
});

describe('payment recovery: the module worker resolves stuck payments on its own', function () {
  this.timeout(60_000);
  let h: Harness;
  const { eventTypes, account } = helpers(() => h);

  before(async () => {
    h = await startHarness(50);
  });
  after(async () => {
    await h?.service.stop();
  });

  it('past the grace period the scheduled scan captures the payment', async () => {
    const merchant = await h.service.merchant('Scheduled');
    await account(merchant.sandbox, 'primary', 100);
    const crash = h.faults.crashAfterNextCall();
    const stalled = merchant.sandbox.post('/v1/payments', { amount: 6_100, card: { token: 'tok_sandbox_approved', brand: 'visa' } });
    const call = await crash.reached;
    h.clock.advance(GRACE_MS + 1);
    const view = await eventually(async () => {
      const r = await merchant.sandbox.get(`/v1/payments/${call.paymentId}`);
      return r.body.status !== 'processing' && r.body;
    });
    expect(view.status).to.equal('captured');
    expect(await eventTypes(call.paymentId)).to.deep.equal(['payment.captured']);

    // The stalled request wakes up without its lease: its tx2 records nothing, and it answers what the worker stored.
    crash.release();
    const answer = await stalled;
    expect(answer.status).to.equal(201);
    expect(answer.body).to.include({ id: call.paymentId, status: 'captured' });
    expect(answer.body.attempts).to.have.length(1);
    const stored = await merchant.sandbox.get(`/v1/payments/${call.paymentId}`);
    expect(stored.body.attempts).to.have.length(1);
    expect(stored.body.updatedAt).to.equal(view.updatedAt);
    expect(await eventTypes(call.paymentId)).to.deep.equal(['payment.captured']);
  });
});
