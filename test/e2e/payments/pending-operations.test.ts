import { expect } from 'chai';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { IDENTITY_MODULE } from '../../../infrastructure/main/identity.module';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { paymentsModule } from '../../../infrastructure/main/payments.module';
import type { SettlePendingOperations } from '../../../application/payments/settle-pending-operations';
import { heldCall, TimeoutInjector } from '../../support/faulty-payment-connectors';
import { eventually } from '../../support/eventually';
import { moduleList } from '../../../infrastructure/main/module';
import { NO_FLOWS_MODULE } from '../../support/no-flows-module';
import type { PaymentsServices } from '../../../infrastructure/main/payments.module';

const SECOND = 1000;

/**
 * Capture, void and refund requests whose acquirer call ended without an answer: settled by the merchant's
 * repetition or by the settlement worker, always under the operation's first id, recorded once, and the request's
 * Idempotency-Key bound to the outcome. The worker's scans are run by hand (its periodic run is off), on a
 * ManualClock, except in the last test.
 */
describe('pending money operations: settled once, by the merchant or the settlement worker', function () {
  this.timeout(60_000);
  const clock = new ManualClock(new Date('2026-05-04T10:00:00.000Z'));
  let service: TestService<PaymentsServices>;
  let merchant: Merchant;
  let settle: SettlePendingOperations;
  const injector = new TimeoutInjector();

  const events = async (id: string) => {
    const rows = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ type: string }>>(
      'select type from events where object_id = ? order by sequence nulls last, id',
      [id],
    );
    return rows.map((r) => r.type);
  };
  const keysOf = (kind: 'capture' | 'void' | 'refund') => injector.operationKeys.filter((k) => k.kind === kind).map((k) => k.idempotencyKey);
  const pay = async (captureMethod: 'automatic' | 'manual', amount = 10_000) => {
    const created = await merchant.sandbox.post('/v1/payments', { amount, captureMethod, card: { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111' } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id as string;
  };
  const view = async (id: string) => (await merchant.sandbox.get(`/v1/payments/${id}`)).body;

  before(async () => {
    service = await startTestServiceWith(moduleList().with(IDENTITY_MODULE).with(NO_FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule({ recoveryScanIntervalMs: 3_600_000, decorateConnectors: injector.decorate })), {
      transport: 'in-process',
      clock,
    });
    settle = service.services.operationSettlement;
    merchant = await service.merchant('Pending operations');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' }, costBasisPoints: 100 });
    expect(account.status).to.equal(201);
  });
  after(async () => {
    await service?.stop();
  });

  it('a refund whose answer was lost is settled by the worker 30 s later, once, as requested; its Idempotency-Key then answers the payment', async () => {
    const id = await pay('automatic');
    injector.loseNextAnswer('refund');
    const request = { amount: 3_000, reason: 'requested_by_customer', metadata: { ticket: 'T-1' } };
    const lost = await merchant.sandbox.post(`/v1/payments/${id}/refund`, request, { 'Idempotency-Key': `refund-${id}` });
    expect(lost.status).to.equal(503);
    expect(lost.body.error.message).to.match(/may have executed .* also retries it on its own/);
    expect((await view(id)).pendingOperation.automaticRetryAt).to.equal(new Date(clock.now().getTime() + 30 * SECOND).toISOString());

    expect(await settle.run(), 'not due before 30 s').to.equal(0);
    clock.advance(31 * SECOND);
    expect(await settle.run()).to.equal(1);
    const settled = await view(id);
    expect(settled).to.include({ refundedAmount: 3_000, refundStatus: 'partial', pendingOperation: null });
    expect(settled.refunds).to.have.length(1);
    expect(settled.refunds[0]).to.include({ amount: 3_000, reason: 'requested_by_customer' });
    expect(settled.refunds[0].metadata).to.deep.equal({ ticket: 'T-1' });
    expect(keysOf('refund')).to.have.length(2);
    expect(keysOf('refund')[1]).to.equal(keysOf('refund')[0]);
    expect(await events(id)).to.deep.equal(['payment.captured', 'payment.partially_refunded']);
    expect(await settle.run(), 'nothing left').to.equal(0);

    const repeated = await merchant.sandbox.post(`/v1/payments/${id}/refund`, request, { 'Idempotency-Key': `refund-${id}` });
    expect(repeated.status, JSON.stringify(repeated.body)).to.equal(201);
    expect(repeated.body).to.include({ refundedAmount: 3_000, refundStatus: 'partial' });
    expect(keysOf('refund'), 'no call to the acquirer').to.have.length(2);
    expect(await events(id)).to.deep.equal(['payment.captured', 'payment.partially_refunded']);

    const otherAmount = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 2_000 }, { 'Idempotency-Key': `refund-${id}` });
    expect(otherAmount.status).to.equal(409);
    expect(otherAmount.body.error.code).to.equal('idempotency_conflict');
    const next = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 2_000 }, { 'Idempotency-Key': `refund-2-${id}` });
    expect(next.body.refundedAmount, 'another key is another refund').to.equal(5_000);
  });

  it('while the acquirer does not answer, the worker tries again with backoff, always under the first id', async () => {
    const id = await pay('manual');
    injector.loseNextAnswer('capture');
    expect((await merchant.sandbox.post(`/v1/payments/${id}/capture`, { amount: 6_000 })).status).to.equal(503);

    clock.advance(31 * SECOND);
    injector.loseNextAnswer('capture');
    expect(await settle.run()).to.equal(0);
    const waiting = await view(id);
    expect(waiting).to.include({ status: 'authorized', capturedAmount: 0 });
    expect(waiting.pendingOperation).to.deep.equal({ kind: 'capture', amount: 6_000, inFlight: false, automaticRetryAt: new Date(clock.now().getTime() + 60 * SECOND).toISOString() });

    const calls = keysOf('capture').length;
    clock.advance(59 * SECOND);
    expect(await settle.run()).to.equal(0);
    expect(keysOf('capture'), 'not due yet').to.have.length(calls);
    clock.advance(2 * SECOND);
    expect(await settle.run()).to.equal(1);
    expect(await view(id)).to.include({ status: 'captured', capturedAmount: 6_000, pendingOperation: null });
    const keys = keysOf('capture').slice(-3);
    expect(new Set(keys).size, 'three calls, one operation').to.equal(1);
    expect(await events(id)).to.deep.equal(['payment.authorized', 'payment.captured']);
  });

  it('a repetition that fails before reaching the acquirer leaves the operation pending (the first call may have been executed)', async () => {
    const id = await pay('manual');
    injector.loseNextAnswer('void');
    expect((await merchant.sandbox.post(`/v1/payments/${id}/void`, {}, { 'Idempotency-Key': `void-${id}` })).status).to.equal(503);
    injector.injectNext('void', 'not-sent');
    const failed = await merchant.sandbox.post(`/v1/payments/${id}/void`, {}, { 'Idempotency-Key': `void-${id}` });
    expect(failed.status).to.equal(503);
    expect(failed.body.error.message).to.match(/may have executed/);
    expect((await view(id)).pendingOperation).to.include({ kind: 'void', inFlight: false });

    const repeated = await merchant.sandbox.post(`/v1/payments/${id}/void`, {}, { 'Idempotency-Key': `void-${id}` });
    expect(repeated.status, JSON.stringify(repeated.body)).to.equal(201);
    expect(repeated.body.status).to.equal('voided');
    const keys = keysOf('void').slice(-2);
    expect(keys[1], 'resumed under the first id').to.equal(keys[0]);
    expect(await events(id)).to.deep.equal(['payment.authorized', 'payment.voided']);
  });

  it("a merchant's repetition while the worker holds the operation answers 409 without binding the key; repeated after, the key answers the settled payment", async () => {
    const id = await pay('automatic');
    injector.loseNextAnswer('refund');
    expect((await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 4_000 }, { 'Idempotency-Key': `refund-${id}` })).status).to.equal(503);
    clock.advance(31 * SECOND);
    const held = heldCall();
    injector.injectNext('refund', held.fault);
    const running = settle.run();
    await held.reached;

    const during = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 4_000 }, { 'Idempotency-Key': `refund-${id}` });
    expect(during.status).to.equal(409);
    expect(during.body.error.message).to.match(/in progress/);
    expect(during.headers.get('retry-after'), 'a refusal that holds only for a moment says when to retry').to.equal('1');
    expect((await view(id)).pendingOperation).to.deep.equal({ kind: 'refund', amount: 4_000, inFlight: true, automaticRetryAt: null });

    held.release();
    expect(await running).to.equal(1);
    const after = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 4_000 }, { 'Idempotency-Key': `refund-${id}` });
    expect(after.status, JSON.stringify(after.body)).to.equal(201);
    expect(after.body).to.include({ refundedAmount: 4_000 });
    expect(await events(id)).to.deep.equal(['payment.captured', 'payment.partially_refunded']);
  });

  it('a request whose claim expired mid-call and a repetition that resumed it both finish: the operation is recorded once', async () => {
    const id = await pay('automatic');
    const held = heldCall();
    injector.injectNext('refund', held.fault);
    const stalled = merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 3_000 });
    await held.reached;
    clock.advance(61 * SECOND); // past the 60 s claim
    const resumed = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 3_000 });
    expect(resumed.status, JSON.stringify(resumed.body)).to.equal(201);
    held.release();
    const late = await stalled;
    expect(late.status, JSON.stringify(late.body)).to.equal(201);
    expect(late.body).to.include({ refundedAmount: 3_000 });
    const keys = keysOf('refund').slice(-2);
    expect(keys[1], 'one operation at the acquirer').to.equal(keys[0]);
    const settled = await view(id);
    expect(settled).to.include({ refundedAmount: 3_000, pendingOperation: null });
    expect(settled.refunds).to.have.length(1);
    expect(await events(id)).to.deep.equal(['payment.captured', 'payment.partially_refunded']);
  });

  it('an operation whose process stalls mid-call is taken up by the worker once its claim expires, and recorded once', async () => {
    const id = await pay('manual');
    const held = heldCall();
    injector.injectNext('capture', held.fault);
    const stalled = merchant.sandbox.post(`/v1/payments/${id}/capture`, { amount: 2_500 }, { 'Idempotency-Key': `capture-${id}` });
    await held.reached;
    expect(await settle.run(), 'claimed by a live request').to.equal(0);
    clock.advance(61 * SECOND);
    expect(await settle.run()).to.equal(1);
    expect(await view(id)).to.include({ status: 'captured', capturedAmount: 2_500, pendingOperation: null });
    held.release();
    expect((await stalled).status).to.equal(201);
    const keys = keysOf('capture').slice(-2);
    expect(keys[1], 'the worker resumed the same operation').to.equal(keys[0]);
    const settled = await view(id);
    expect(settled.operations.filter((o: { type: string }) => o.type === 'capture')).to.have.length(1);
    expect(await events(id)).to.deep.equal(['payment.authorized', 'payment.captured']);
  });

  it('the worker settles due operations concurrently: one waiting on its acquirer holds none of the others back', async () => {
    const slow = await pay('automatic');
    const quick = await pay('automatic');
    injector.loseNextAnswer('refund');
    expect((await merchant.sandbox.post(`/v1/payments/${slow}/refund`, { amount: 1_000 })).status).to.equal(503);
    injector.loseNextAnswer('refund');
    expect((await merchant.sandbox.post(`/v1/payments/${quick}/refund`, { amount: 2_000 })).status).to.equal(503);
    clock.advance(31 * SECOND);
    const held = heldCall();
    injector.injectNext('refund', held.fault); // the first repetition to reach the acquirer waits
    const running = settle.run();
    await held.reached;
    const settledWhileHeld = await eventually(async () => {
      const views = await Promise.all([view(slow), view(quick)]);
      return views.find((v) => v.pendingOperation === null) ?? null;
    }, 5_000);
    expect(settledWhileHeld.refundedAmount).to.be.oneOf([1_000, 2_000]);
    held.release();
    expect(await running).to.equal(2);
    expect((await view(slow)).refundedAmount).to.equal(1_000);
    expect((await view(quick)).refundedAmount).to.equal(2_000);
  });

  it('an acquirer refusal of the repetition ends the operation with no record; the same key then runs as a new request', async () => {
    const id = await pay('manual');
    injector.injectNext('capture', 'unanswered');
    expect((await merchant.sandbox.post(`/v1/payments/${id}/capture`, { amount: 4_000 }, { 'Idempotency-Key': `capture-${id}` })).status).to.equal(503);
    clock.advance(31 * SECOND);
    injector.injectNext('capture', 'refused');
    expect(await settle.run()).to.equal(1);
    expect(await view(id)).to.include({ status: 'authorized', capturedAmount: 0, pendingOperation: null });
    expect(await events(id)).to.deep.equal(['payment.authorized']);

    const calls = keysOf('capture').length;
    const again = await merchant.sandbox.post(`/v1/payments/${id}/capture`, { amount: 4_000 }, { 'Idempotency-Key': `capture-${id}` });
    expect(again.status, JSON.stringify(again.body)).to.equal(201);
    expect(again.body).to.include({ status: 'captured', capturedAmount: 4_000 });
    expect(keysOf('capture')).to.have.length(calls + 1);
    expect(await events(id)).to.deep.equal(['payment.authorized', 'payment.captured']);
  });
});

describe('pending money operations: the payments worker settles them on its own', function () {
  this.timeout(60_000);
  const clock = new ManualClock(new Date('2026-05-04T10:00:00.000Z'));
  let service: TestService<PaymentsServices>;
  const injector = new TimeoutInjector();

  before(async () => {
    service = await startTestServiceWith(moduleList().with(IDENTITY_MODULE).with(NO_FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule({ recoveryScanIntervalMs: 50, decorateConnectors: injector.decorate })), {
      transport: 'in-process',
      clock,
    });
  });
  after(async () => {
    await service?.stop();
  });

  it('a lost capture is recorded by the worker once it is due', async () => {
    const merchant = await service.merchant('Worker');
    await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' }, costBasisPoints: 100 });
    const created = await merchant.sandbox.post('/v1/payments', { amount: 5_000, captureMethod: 'manual', card: { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111' } });
    const id = created.body.id as string;
    injector.loseNextAnswer('capture');
    expect((await merchant.sandbox.post(`/v1/payments/${id}/capture`, {})).status).to.equal(503);
    clock.advance(31 * SECOND);
    const deadline = Date.now() + 10_000;
    let payment = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
    while (payment.status !== 'captured' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      payment = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
    }
    expect(payment).to.include({ status: 'captured', capturedAmount: 5_000, pendingOperation: null });
  });
});
