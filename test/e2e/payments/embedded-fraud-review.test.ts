import { expect } from 'chai';
import { eventually } from '../../support/eventually';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';

/**
 * Embedded mode (and startTestService): the sandbox adapter starts before the modules, so it cannot be given the
 * CoreNotifications address at start; the payments module serves it and hands the address over late.
 */
describe('embedded mode: acquirer fraud decisions reach the core (late-bound CoreNotifications address)', function () {
  this.timeout(60_000);
  let service: TestService;
  let merchant: Merchant;

  const eventTypes = async (id: string) => {
    const rows = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ type: string; data: any }>>(
      'select type, data from events where object_id = ? order by sequence nulls last, id',
      [id],
    );
    return rows.map((r) => ({ type: r.type, data: typeof r.data === 'string' ? JSON.parse(r.data) : r.data }));
  };

  before(async () => {
    // Default modules and the embedded adapters (startEmbeddedAdapters) in worker threads, as `make run` has them:
    // the address crosses to the sandbox's thread.
    service = await startTestService({ transport: 'in-process', adapterThreads: true, env: { SANDBOX_FRAUD_REVIEW_DELAY_MS: '300' } });
    expect(service.core.adapters.find((a) => a.slug === 'sandbox')?.setCoreNotificationsAddress, 'embedded sandbox is late-bindable').to.be.a('function');
    merchant = await service.merchant('Embedded fraud review');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm_embedded', apiKey: 'k1' }, costBasisPoints: 100 });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
  });
  after(async () => {
    await service?.stop();
  });

  const pay = async (scenario: string) => {
    const r = await merchant.sandbox.post('/v1/payments', { amount: 4_200, card: { token: `tok_sandbox_${scenario}`, brand: 'visa', last4: '1111' } });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body).to.deep.include({ status: 'authorized' });
    expect(r.body.fraudReview.status).to.equal('pending');
    return r.body.id as string;
  };

  it('fraud_review_accept resolves to captured with payment.fraud_review_resolved', async () => {
    const id = await pay('fraud_review_accept');
    const view = await eventually(async () => {
      const r = await merchant.sandbox.get(`/v1/payments/${id}`);
      return r.body.fraudReview.status !== 'pending' && r.body;
    });
    expect(view).to.include({ status: 'captured', capturedAmount: 4_200 });
    expect(view.fraudReview.status).to.equal('accepted');
    const events = await eventTypes(id);
    expect(events.map((e) => e.type)).to.deep.equal(['payment.authorized', 'payment.captured', 'payment.fraud_review_resolved']);
    expect(events[2]!.data.object.fraudReview.status).to.equal('accepted');
  });

  it('fraud_review_reject resolves to voided with payment.fraud_review_resolved', async () => {
    const id = await pay('fraud_review_reject');
    const view = await eventually(async () => {
      const r = await merchant.sandbox.get(`/v1/payments/${id}`);
      return r.body.fraudReview.status !== 'pending' && r.body;
    });
    expect(view.status).to.equal('voided');
    expect(view.fraudReview.status).to.equal('rejected');
    expect((await eventTypes(id)).map((e) => e.type)).to.deep.equal(['payment.authorized', 'payment.voided', 'payment.fraud_review_resolved']);
  });
});
