import { expect } from 'chai';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { loadConfig } from '../../../infrastructure/config/config';
import { createLogger } from '../../../infrastructure/logging/logger';
import { startEmbeddedAdapters, type EmbeddedAdapters } from '../../../infrastructure/main/embedded-adapters';
import { moduleList } from '../../../infrastructure/main/module';
import { IDENTITY_MODULE } from '../../../infrastructure/main/identity.module';
import { FLOWS_MODULE } from '../../../infrastructure/main/flows.module';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { BILLING_MODULE } from '../../../infrastructure/main/billing.module';
import { paymentsModule } from '../../../infrastructure/main/payments.module';
import type { AcquirerGateway } from '../../../domain/ports/acquirer-gateway';
import type { PaymentConnectors } from '../../../domain/ports/payment-connectors';
import { startTestServiceWith, type Merchant } from '../../support/test-service';
import { eventually } from '../../support/eventually';

/**
 * Spec (issue 25 item 4): a payment the bank reports paid after the service voided or expired it is recorded and
 * reported to the merchant, never silently dropped. Through the REST edge on PostgreSQL with the sandbox acquirer over
 * gRPC: the bank's word arrives by the inbound notice route or by the adapter's core.v1 ReportChargeOutcome; the
 * payment stays canceled, records latePayment (in the API view and the event) and emits
 * payment.late_payment_received exactly once.
 *
 * The race is staged with a bank that acknowledges the charge's removal while the payer's transfer is already on its
 * way: the service's CancelCharge for a chosen charge is answered `canceled` without reaching the sandbox, where the
 * charge stays payable; the payer then pays it there.
 */
describe('Pix paid after the service voided or expired it (REST, PostgreSQL, sandbox acquirer over gRPC)', function () {
  this.timeout(60_000);
  const clock = new ManualClock(new Date());
  const payerAlreadyPaying = new Set<string>();
  let adapters: EmbeddedAdapters;
  let coreNotificationsAddress: string | null = null;
  let sandboxReportsTo: (address: string) => void;
  let service: Awaited<ReturnType<typeof startService>>;
  let merchant: Merchant;
  let accountId: string;
  let payer: string;

  /** CancelCharge of a charge whose payer is already paying: the bank says canceled, yet the charge stays payable. */
  const removalRacingThePayer = (inner: PaymentConnectors): PaymentConnectors => ({
    accounts: (scope) => inner.accounts(scope),
    open: async (scope, id) => {
      const opened = await inner.open(scope, id);
      if (!opened) return opened;
      const gateway: AcquirerGateway = Object.create(opened.gateway) as AcquirerGateway;
      gateway.cancelCharge = async (input) =>
        payerAlreadyPaying.has(input.acquirerPaymentId) ? { status: 'canceled', paidAmount: 0, paidAt: null, rawCode: 'removed' } : opened.gateway.cancelCharge(input);
      return { ...opened, gateway };
    },
  });

  const startService = () =>
    startTestServiceWith(
      moduleList().with(IDENTITY_MODULE).with(FLOWS_MODULE).with(CONNECTORS_MODULE).with(BILLING_MODULE).with(paymentsModule({ decorateConnectors: removalRacingThePayer })),
      // Workers on: the core.v1 CoreNotifications server is one. The clock is manual, so nothing is polled unless a
      // test moves it.
      { transport: 'in-process', clock, adapters: adapters.adapters.map((a) => (a.setCoreNotificationsAddress ? { ...a, setCoreNotificationsAddress: learnCoreAddress(a.setCoreNotificationsAddress) } : a)) },
    );
  const learnCoreAddress = (set: (address: string) => void) => (address: string) => {
    coreNotificationsAddress = address;
    sandboxReportsTo = set;
    set(address);
  };

  const eventsOf = async (paymentId: string) =>
    service.core.orm.em
      .fork({ useContext: false })
      .execute<Array<{ type: string; data: { object: Record<string, unknown> } }>>('select type, data from events where object_id = ? order by sequence nulls last, id', [paymentId]);
  const paymentOf = async (id: string) => (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
  const payAtTheBank = async (acquirerPaymentId: string) => {
    const scope = { organizationId: merchant.organizationId, environment: 'sandbox' as const };
    const opened = await service.services.connectorAccounts.open(scope, accountId);
    const result = await service.services.connectorAccounts.sandboxSimulator('sandbox').simulateCharge({ credentials: opened!.credentials, acquirerPaymentId, outcome: 'paid' });
    expect(result.applied, 'the charge was still payable at the bank').to.equal(true);
  };
  const createPix = async (body: Record<string, unknown> = {}) => {
    const r = await merchant.sandbox.post('/v1/payments', { amount: 12_345, methodType: 'pix', customerId: payer, ...body });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    payerAlreadyPaying.add(r.body.acquirer.acquirerPaymentId);
    return r.body;
  };
  const voided = async () => {
    const payment = await createPix();
    const r = await merchant.sandbox.post(`/v1/payments/${payment.id}/void`, { reason: 'order canceled' });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body).to.include({ status: 'canceled', latePayment: null });
    return payment;
  };
  const expired = async () => {
    const payment = await createPix({ pix: { expiresInSeconds: 600 } });
    clock.advance(11 * 60_000);
    const claimed = await service.services.bankCharges.claimDue(50);
    await Promise.all(claimed.map((wait) => service.services.bankCharges.poll(wait)));
    // the background poller may have taken it first: either way it ends canceled
    await eventually(async () => (await paymentOf(payment.id)).status === 'canceled');
    return payment;
  };
  /** The merchant is told once, with the amount; the payment stays canceled and shows what arrived. */
  const expectLatePaymentRecorded = async (paymentId: string, endedWith: string) => {
    const late = await eventually(async () => {
      const p = await paymentOf(paymentId);
      return p.latePayment && p;
    });
    expect(late.status).to.equal('canceled');
    expect(late.latePayment).to.include({ amount: 12_345 });
    expect(Date.parse(late.latePayment.paidAt)).to.be.a('number').and.not.NaN;
    expect(late.latePayment.recordedAt).to.equal(late.updatedAt);
    const events = await eventsOf(paymentId);
    expect(events.map((e) => e.type)).to.deep.equal([endedWith, 'payment.late_payment_received']);
    expect(events[1]!.data.object).to.deep.include({ id: paymentId, status: 'canceled', latePayment: late.latePayment });
  };
  /** Once recorded, a repeated notice or report records nothing more. */
  const expectNothingMore = async (paymentId: string, repeat: () => Promise<unknown>, endedWith: string) => {
    const before = await paymentOf(paymentId);
    await repeat();
    await new Promise((resolve) => setTimeout(resolve, 300)); // the check runs after the answer: let it (not) act
    expect((await paymentOf(paymentId)).latePayment).to.deep.equal(before.latePayment);
    expect((await eventsOf(paymentId)).map((e) => e.type)).to.deep.equal([endedWith, 'payment.late_payment_received']);
  };

  const webhookUrl = async () => new URL((await merchant.sandbox.get(`/v1/connector-accounts/${accountId}`)).body.webhookUrl).pathname;
  const notice = async (acquirerPaymentId: string) => {
    const r = await service.client().post(await webhookUrl(), { acquirerPaymentId });
    expect(r.status).to.equal(200);
    expect(r.body).to.deep.equal({ received: true, charges: 1 });
  };
  /** The adapter's ReportChargeOutcome cannot reach the core (so only the inbound notice tells it). */
  const withReportsLost = async <T>(act: () => Promise<T>): Promise<T> => {
    sandboxReportsTo('127.0.0.1:1');
    try {
      return await act();
    } finally {
      sandboxReportsTo(coreNotificationsAddress!);
    }
  };

  before(async () => {
    adapters = await startEmbeddedAdapters(loadConfig({ LOG_LEVEL: 'silent' }), createLogger('silent'));
    service = await startService();
    expect(coreNotificationsAddress, 'the core served core.v1 CoreNotifications to the sandbox').to.be.a('string');
    merchant = await service.merchant('Late Pix');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'bank', credentials: { merchantId: 'm_late', apiKey: 'k1' } });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
    accountId = account.body.id;
    payer = (await merchant.sandbox.post('/v1/customers', { name: 'Paula Pagadora', document: '52998224725' })).body.id;
  });
  after(async () => {
    await service?.stop();
    await adapters?.stop();
  });

  it('voided, then the inbound notice says paid: recorded as a late payment, told once', async () => {
    const payment = await voided();
    const charge = payment.acquirer.acquirerPaymentId;
    await withReportsLost(async () => {
      await payAtTheBank(charge);
      await notice(charge);
      await expectLatePaymentRecorded(payment.id, 'payment.canceled');
      await expectNothingMore(payment.id, () => notice(charge), 'payment.canceled');
    });
  });

  it('voided, then the adapter reports it paid over core.v1 ReportChargeOutcome: recorded as a late payment, told once', async () => {
    const payment = await voided();
    await payAtTheBank(payment.acquirer.acquirerPaymentId); // the sandbox reports the paid charge to the core itself
    await expectLatePaymentRecorded(payment.id, 'payment.canceled');
    await expectNothingMore(payment.id, () => notice(payment.acquirer.acquirerPaymentId), 'payment.canceled');
  });

  it('expired on the service clock, then the inbound notice says paid: recorded as a late payment, told once', async () => {
    const payment = await expired();
    const charge = payment.acquirer.acquirerPaymentId;
    await withReportsLost(async () => {
      await payAtTheBank(charge);
      await notice(charge);
      await expectLatePaymentRecorded(payment.id, 'payment.canceled');
      await expectNothingMore(payment.id, () => notice(charge), 'payment.canceled');
    });
  });

  it('expired on the service clock, then the adapter reports it paid over core.v1: recorded as a late payment, told once', async () => {
    const payment = await expired();
    await payAtTheBank(payment.acquirer.acquirerPaymentId);
    await expectLatePaymentRecorded(payment.id, 'payment.canceled');
  });

  it('a payment canceled with nothing paid at the bank records no late payment from a notice', async () => {
    const payment = await voided();
    await notice(payment.acquirer.acquirerPaymentId);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await paymentOf(payment.id)).latePayment).to.equal(null);
    expect((await eventsOf(payment.id)).map((e) => e.type)).to.deep.equal(['payment.canceled']);
  });
});
