import { expect } from 'chai';
import { eventually } from '../../support/eventually';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { IDENTITY_MODULE } from '../../../infrastructure/main/identity.module';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { PAYMENTS_MODULE } from '../../../infrastructure/main/payments.module';
import { SHIPPED_ADAPTERS, type StartedAdapter } from '../../../infrastructure/main/connector-process';
import { startCoreNotificationsServer } from '../../../infrastructure/grpc/core-notifications.server';
import type { RunningGrpcServer } from '../../../infrastructure/grpc/grpc-server';
import type { FraudDecisionReport, FraudDecisionResult } from '../../../application/payments/resolve-fraud-decision';
import { moduleList } from '../../../infrastructure/main/module';
import { NO_FLOWS_MODULE } from '../../support/no-flows-module';
import type { PaymentsServices } from '../../../infrastructure/main/payments.module';

describe('acquirer fraud review decisions (sandbox -> core.v1.CoreNotifications over gRPC)', function () {
  this.timeout(60_000);
  let notifications: RunningGrpcServer;
  let adapter: StartedAdapter;
  let service: TestService<PaymentsServices>;
  let merchant: Merchant;
  let handle: (report: FraudDecisionReport) => Promise<FraudDecisionResult> = async () => 'unknown_payment';

  const eventTypes = async (id: string) => {
    const rows = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ type: string; data: any }>>(
      'select type, data from events where object_id = ? order by sequence nulls last, id',
      [id],
    );
    return rows.map((r) => ({ type: r.type, data: typeof r.data === 'string' ? JSON.parse(r.data) : r.data }));
  };

  before(async () => {
    notifications = await startCoreNotificationsServer({ onFraudDecision: (report) => handle(report) });
    adapter = await SHIPPED_ADAPTERS.sandbox!.start({ port: 0, host: '127.0.0.1', fraudReviewDelayMs: 300, coreNotificationsAddress: notifications.address });
    service = await startTestServiceWith(moduleList().with(IDENTITY_MODULE).with(NO_FLOWS_MODULE).with(CONNECTORS_MODULE).with(PAYMENTS_MODULE), {
      transport: 'in-process',
      adapters: [{ slug: 'sandbox', address: adapter.address }],
    });
    const decisions = service.services.fraudDecisions;
    handle = (report) => decisions.execute(report);
    merchant = await service.merchant('Fraud review');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' }, costBasisPoints: 100 });
    expect(account.status).to.equal(201);
  });
  after(async () => {
    await service?.stop();
    await adapter?.stop();
    await notifications?.stop();
  });

  const pay = async (scenario: string, captureMethod: 'automatic' | 'manual') => {
    const r = await merchant.sandbox.post('/v1/payments', { amount: 8_000, captureMethod, card: { token: `tok_sandbox_${scenario}`, brand: 'visa', last4: '1111' } });
    expect(r.status).to.equal(201);
    expect(r.body).to.deep.include({ status: 'authorized' });
    expect(r.body.fraudReview.status).to.equal('pending');
    return r.body.id as string;
  };

  it('accepted with automatic capture: captured, then payment.fraud_review_resolved (accepted)', async () => {
    const id = await pay('fraud_review_accept', 'automatic');
    const view = await eventually(async () => {
      const r = await merchant.sandbox.get(`/v1/payments/${id}`);
      return r.body.fraudReview.status === 'accepted' && r.body;
    });
    expect(view).to.include({ status: 'captured', capturedAmount: 8_000 });
    const events = await eventTypes(id);
    expect(events.map((e) => e.type)).to.deep.equal(['payment.authorized', 'payment.captured', 'payment.fraud_review_resolved']);
    expect(events[2]!.data.object.fraudReview.status).to.equal('accepted');
    expect(events[2]!.data.previousAttributes.fraudReview.status).to.equal('pending');
  });

  it('accepted with manual capture: stays authorized', async () => {
    const id = await pay('fraud_review_accept', 'manual');
    const view = await eventually(async () => {
      const r = await merchant.sandbox.get(`/v1/payments/${id}`);
      return r.body.fraudReview.status === 'accepted' && r.body;
    });
    expect(view.status).to.equal('authorized');
    expect(view.allowedActions).to.deep.equal(['capture', 'void']);
    expect((await eventTypes(id)).map((e) => e.type)).to.deep.equal(['payment.authorized', 'payment.fraud_review_resolved']);
  });

  it('rejected: voided, then payment.fraud_review_resolved (rejected)', async () => {
    const id = await pay('fraud_review_reject', 'automatic');
    const view = await eventually(async () => {
      const r = await merchant.sandbox.get(`/v1/payments/${id}`);
      return r.body.fraudReview.status === 'rejected' && r.body;
    });
    expect(view.status).to.equal('voided');
    expect((await eventTypes(id)).map((e) => e.type)).to.deep.equal(['payment.authorized', 'payment.voided', 'payment.fraud_review_resolved']);
  });

  it('a merchant void or capture under review closes it as merchant_decided; the provider\'s later report changes nothing', async () => {
    const reportFor = async (id: string, decision: 'accepted' | 'rejected') => {
      const p = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
      return handle({ reportId: `rep_${id}`, connectorSlug: 'sandbox', acquirerPaymentId: p.acquirer.acquirerPaymentId, attemptId: p.attempts[0].id, decision });
    };

    const voidedId = await pay('fraud_review', 'automatic');
    const voided = await merchant.sandbox.post(`/v1/payments/${voidedId}/void`, {});
    expect(voided.status, JSON.stringify(voided.body)).to.equal(201);
    expect(voided.body).to.deep.include({ status: 'voided' });
    expect(voided.body.fraudReview.status).to.equal('merchant_decided');
    // The provider accepts afterwards: the sale stays voided, nothing is captured, no second resolution.
    expect(await reportFor(voidedId, 'accepted')).to.equal('already_resolved');
    const afterVoid = (await merchant.sandbox.get(`/v1/payments/${voidedId}`)).body;
    expect(afterVoid).to.deep.include({ status: 'voided', capturedAmount: 0 });
    expect(afterVoid.fraudReview.status).to.equal('merchant_decided');
    const voidEvents = await eventTypes(voidedId);
    expect(voidEvents.map((e) => e.type)).to.deep.equal(['payment.authorized', 'payment.voided', 'payment.fraud_review_resolved']);
    expect(voidEvents[1]!.data.object.fraudReview.status, 'the state change carries the review already closed').to.equal('merchant_decided');
    expect(voidEvents[2]!.data.object.fraudReview.status).to.equal('merchant_decided');
    expect(voidEvents[2]!.data.previousAttributes.fraudReview.status).to.equal('pending');

    const capturedId = await pay('fraud_review', 'manual');
    expect((await merchant.sandbox.post(`/v1/payments/${capturedId}/capture`, {})).body.status).to.equal('captured');
    // The provider rejects afterwards: the capture stands.
    expect(await reportFor(capturedId, 'rejected')).to.equal('already_resolved');
    expect((await merchant.sandbox.get(`/v1/payments/${capturedId}`)).body).to.deep.include({ status: 'captured', capturedAmount: 8_000 });
    expect((await eventTypes(capturedId)).map((e) => e.type)).to.deep.equal(['payment.authorized', 'payment.captured', 'payment.fraud_review_resolved']);
  });

  it('a repeated report changes nothing; a report that matches no payment under review is refused', async () => {
    const id = await pay('fraud_review', 'automatic');
    const p = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
    const attemptId = p.attempts[0].id;
    const report = { reportId: 'rep_1', connectorSlug: 'sandbox', acquirerPaymentId: p.acquirer.acquirerPaymentId, attemptId, decision: 'accepted' as const };
    expect(await handle({ ...report, acquirerPaymentId: 'forged' })).to.equal('unknown_payment');
    expect(await handle({ ...report, attemptId: 'att_unknown' })).to.equal('unknown_payment');
    expect(await handle(report)).to.equal('resolved');
    expect(await handle({ ...report, reportId: 'rep_2', decision: 'rejected' })).to.equal('already_resolved');
    const after = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
    expect(after).to.deep.include({ status: 'captured' });
    expect((await eventTypes(id)).filter((e) => e.type === 'payment.fraud_review_resolved')).to.have.length(1);
  });
});
