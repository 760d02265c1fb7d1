import { expect } from 'chai';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { RecoveryFaults } from '../../support/recovery-faults';
import { eventually } from '../../support/eventually';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { IDENTITY_MODULE } from '../../../infrastructure/main/identity.module';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { paymentsModule } from '../../../infrastructure/main/payments.module';
import { MAX_RECONCILIATION_TRIES, type ReconcileUnknownAttempts } from '../../../application/payments/reconcile-unknown-attempts';
import { moduleList } from '../../../infrastructure/main/module';
import { NO_FLOWS_MODULE } from '../../support/no-flows-module';
import type { PaymentsServices } from '../../../infrastructure/main/payments.module';
import type { ConnectorsServices } from '../../../infrastructure/main/connectors.module';

const DEADLINE_MS = 300;
const HOUR = 3_600_000;

/**
 * A timeout is an unknown outcome: when routing falls back and another account decides, the timed-out acquirer may
 * have authorized anyway. The reconciliation re-sends Authorize with the timed-out attempt's id and reverses what
 * it finds, so the cardholder is never held twice. The timeouts are real (sandbox `timeout` scenario, gRPC
 * deadline of 300 ms).
 */
describe('reconciliation of timed-out attempts after a fallback (sandbox timeout scenario over gRPC)', function () {
  this.timeout(60_000);
  const clock = new ManualClock(new Date('2026-07-01T09:00:00.000Z'));
  const faults = new RecoveryFaults();
  let service: TestService<ConnectorsServices & PaymentsServices>;
  let reconcile: ReconcileUnknownAttempts;

  const sql = <T>(query: string, params: unknown[] = []) => service.core.orm.em.fork({ useContext: false }).execute<T[]>(query, params);
  const eventTypes = async (id: string) => (await sql<{ type: string }>('select type from events where object_id = ? order by sequence nulls last, id', [id])).map((r) => r.type);
  const account = async (merchant: Merchant, name: string, costBasisPoints: number) => {
    const r = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name, credentials: { merchantId: `m_${name}_${Math.random().toString(36).slice(2)}`, apiKey: 'k1' }, costBasisPoints });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body.id as string;
  };
  /** What the acquirer itself holds for an idempotency key (QueryCharge by key on that account). */
  const atAcquirer = async (merchant: Merchant, accountId: string, key: string) => {
    const directory = service.services.connectorAccounts;
    const opened = await directory.open({ organizationId: merchant.organizationId, environment: 'sandbox' }, accountId);
    return directory.acquirerGateway('sandbox').queryCharge({ credentials: opened!.credentials, idempotencyKey: key });
  };
  /** Cheap account times out (faults decide how it behaves on the re-send), the dearer one approves. */
  const fallbackPayment = async (name: string, behaviour: 'lateApproval' | 'timingOut' | 'droppingAfterSend' | 'failing', captureMethod: 'automatic' | 'manual') => {
    const merchant = await service.merchant(name);
    const cheap = await account(merchant, 'cheap', 100);
    const dear = await account(merchant, 'dear', 300);
    faults[behaviour].add(cheap);
    const r = await merchant.sandbox.post('/v1/payments', { amount: 9_900, captureMethod, card: { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111' } });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return { merchant, cheap, dear, payment: r.body };
  };

  before(async () => {
    service = await startTestServiceWith(moduleList().with(IDENTITY_MODULE).with(NO_FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule({ decorateConnectors: faults.decorate, recoveryScanIntervalMs: HOUR, expiryScanIntervalMs: HOUR })), {
      transport: 'in-process',
      clock,
      config: { connectorDeadlineMs: DEADLINE_MS },
    });
    reconcile = service.services.attemptReconciliation;
  });
  after(async () => {
    await service?.stop();
  });

  it('the timed-out account had authorized (manual capture): the reconciliation voids it, once; the payment is untouched', async () => {
    const { merchant, cheap, dear, payment } = await fallbackPayment('Late approval manual', 'lateApproval', 'manual');
    expect(payment).to.include({ status: 'authorized', connectorAccountId: dear, hasFallback: true });
    const [timedOut, approved] = payment.attempts;
    expect(timedOut).to.include({ connectorAccountId: cheap, outcome: 'timeout', classification: 'TIMEOUT' });
    expect(timedOut.reconciliation).to.include({ status: 'pending', tries: 0 });
    expect(approved).to.include({ connectorAccountId: dear, outcome: 'approved' });
    const queued = await sql<{ status: string }>('select status from payment_reconciliations where attempt_id = ?', [timedOut.id]);
    expect(queued.map((q) => q.status)).to.deep.equal(['pending']);

    // Two workers at once: one reconciles.
    const counts = await Promise.all([reconcile.run(), reconcile.run()]);
    expect(counts[0] + counts[1]).to.equal(1);
    expect(await reconcile.run()).to.equal(0);

    const view = (await merchant.sandbox.get(`/v1/payments/${payment.id}`)).body;
    expect(view.attempts[0].reconciliation).to.include({ status: 'voided', tries: 1, amount: 9_900 });
    expect(view.attempts[0].reconciliation.acquirerPaymentId).to.be.a('string');
    expect(view.attempts[0].reconciliation.operationId).to.match(/^op_/);
    // The cheap acquirer holds nothing any more; the payment stays authorized on the dear one.
    const cheapSide = await atAcquirer(merchant, cheap, timedOut.id);
    expect(cheapSide.status).to.equal('voided');
    expect(cheapSide.references?.acquirerPaymentId).to.equal(view.attempts[0].reconciliation.acquirerPaymentId);
    expect((await atAcquirer(merchant, dear, approved.id)).status).to.equal('authorized');
    expect(view).to.include({ status: 'authorized', connectorAccountId: dear });
    expect(faults.callsWithKey(timedOut.id)).to.equal(2); // the timed-out call + one re-send with the same key
    const done = await sql<{ status: string; request: unknown }>('select status, request from payment_reconciliations where attempt_id = ?', [timedOut.id]);
    expect(done[0]!.status).to.equal('voided');
    expect(JSON.stringify(done[0]!.request)).to.not.include('tok_'); // the card token is not kept once settled
    expect(await eventTypes(payment.id)).to.deep.equal(['payment.authorized']);
  });

  it('a connection dropped after the request was sent is reconciled like a timeout: the authorization it left is voided', async () => {
    const { merchant, cheap, dear, payment } = await fallbackPayment('Dropped connection', 'droppingAfterSend', 'manual');
    expect(payment).to.include({ status: 'authorized', connectorAccountId: dear, hasFallback: true });
    const [dropped] = payment.attempts;
    expect(dropped).to.include({ connectorAccountId: cheap, outcome: 'technical_failure', classification: 'TECHNICAL_FAILURE' });
    expect(dropped).to.not.have.property('outcomeUnknown');
    expect(dropped.reconciliation).to.include({ status: 'pending', tries: 0 });
    expect((await atAcquirer(merchant, cheap, dropped.id)).status).to.equal('authorized'); // held on the card

    expect(await reconcile.run()).to.equal(1);
    const view = (await merchant.sandbox.get(`/v1/payments/${payment.id}`)).body;
    expect(view.attempts[0].reconciliation).to.include({ status: 'voided', tries: 1, amount: 9_900 });
    expect((await atAcquirer(merchant, cheap, dropped.id)).status).to.equal('voided');
    expect(view).to.include({ status: 'authorized', connectorAccountId: dear });
  });

  it('a technical failure the acquirer answered (a processing error) is not reconciled', async () => {
    const { payment } = await fallbackPayment('Processing error', 'failing', 'manual');
    const [failed] = payment.attempts;
    expect(failed).to.include({ outcome: 'technical_failure' });
    expect(failed).to.not.have.property('reconciliation');
    expect(await sql('select 1 from payment_reconciliations where attempt_id = ?', [failed.id])).to.have.length(0);
  });

  it('automatic capture: what the timed-out account captured is refunded', async () => {
    const { merchant, cheap, payment } = await fallbackPayment('Late approval automatic', 'lateApproval', 'automatic');
    expect(payment.status).to.equal('captured');
    expect(await reconcile.run()).to.equal(1);
    const view = (await merchant.sandbox.get(`/v1/payments/${payment.id}`)).body;
    expect(view.attempts[0].reconciliation).to.include({ status: 'refunded', amount: 9_900 });
    const cheapSide = await atAcquirer(merchant, cheap, view.attempts[0].id);
    expect(cheapSide.paidAmount).to.equal(0);
    expect(view).to.include({ status: 'captured', capturedAmount: 9_900, refundedAmount: 0 });
    expect(await eventTypes(payment.id)).to.deep.equal(['payment.captured']);
  });

  it('the timed-out account never answers: retried with backoff, then left unresolved; nothing is charged', async () => {
    const { merchant, cheap, payment } = await fallbackPayment('Never answers', 'timingOut', 'manual');
    const attemptId = payment.attempts[0].id as string;
    expect(await reconcile.run()).to.equal(0);
    let view = (await merchant.sandbox.get(`/v1/payments/${payment.id}`)).body;
    expect(view.attempts[0].reconciliation).to.include({ status: 'pending', tries: 1 });
    expect(view.attempts[0].reconciliation.message).to.match(/timeout/);

    // Not due again before the backoff.
    expect(await reconcile.run()).to.equal(0);
    expect(faults.callsWithKey(attemptId)).to.equal(2);

    for (let i = 2; i <= MAX_RECONCILIATION_TRIES; i += 1) {
      clock.advance(HOUR);
      await reconcile.run();
    }
    view = (await merchant.sandbox.get(`/v1/payments/${payment.id}`)).body;
    expect(view.attempts[0].reconciliation).to.include({ status: 'unresolved', tries: MAX_RECONCILIATION_TRIES });
    expect(faults.callsWithKey(attemptId)).to.equal(1 + MAX_RECONCILIATION_TRIES);
    clock.advance(HOUR);
    expect(await reconcile.run()).to.equal(0);
    expect(faults.callsWithKey(attemptId)).to.equal(1 + MAX_RECONCILIATION_TRIES);
    expect((await atAcquirer(merchant, cheap, attemptId)).status).to.equal('not_found');
    expect(await eventTypes(payment.id)).to.deep.equal(['payment.authorized']);
  });

  it('every account timed out: the payment fails and each timed-out attempt is reconciled', async () => {
    const merchant = await service.merchant('All time out');
    const a = await account(merchant, 'a', 100);
    const b = await account(merchant, 'b', 200);
    faults.lateApproval.add(a);
    faults.lateApproval.add(b);
    const r = await merchant.sandbox.post('/v1/payments', { amount: 1_234, captureMethod: 'manual', card: { token: 'tok_sandbox_approved', brand: 'visa' } });
    expect(r.body.status).to.equal('failed');
    expect(r.body.attempts.map((x: any) => x.reconciliation?.status)).to.deep.equal(['pending', 'pending']);
    expect(await reconcile.run()).to.equal(2);
    const view = (await merchant.sandbox.get(`/v1/payments/${r.body.id}`)).body;
    expect(view.attempts.map((x: any) => x.reconciliation.status)).to.deep.equal(['voided', 'voided']);
    expect(view.status).to.equal('failed');
    expect(await eventTypes(r.body.id)).to.deep.equal(['payment.failed']);
  });

  it('due reconciliations run concurrently: a re-send waiting on its acquirer holds none of the others back', async () => {
    const first = await fallbackPayment('Concurrent one', 'lateApproval', 'manual');
    const second = await fallbackPayment('Concurrent two', 'lateApproval', 'manual');
    const held = faults.crashAfterNextCall(); // the first re-send to reach an acquirer waits after its answer
    const running = reconcile.run();
    const waiting = await held.reached;
    const other = [first, second].find((p) => p.payment.id !== waiting.paymentId)!;
    const settled = await eventually(async () => {
      const view = (await other.merchant.sandbox.get(`/v1/payments/${other.payment.id}`)).body;
      return view.attempts[0].reconciliation.status === 'voided' ? view : null;
    }, 5_000);
    expect(settled.attempts[0].reconciliation).to.include({ tries: 1 });
    held.release();
    expect(await running).to.equal(2);
  });
});
