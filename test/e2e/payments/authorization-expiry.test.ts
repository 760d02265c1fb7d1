import { expect } from 'chai';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { IDENTITY_MODULE } from '../../../infrastructure/main/identity.module';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { paymentsModule } from '../../../infrastructure/main/payments.module';
import type { NotifyExpiringAuthorizations } from '../../../application/payments/notify-expiring-authorizations';
import { TimeoutInjector } from '../../support/faulty-payment-connectors';
import { moduleList } from '../../../infrastructure/main/module';
import { NO_FLOWS_MODULE } from '../../support/no-flows-module';
import type { PaymentsServices } from '../../../infrastructure/main/payments.module';

const DAY = 24 * 60 * 60 * 1000;
const MINUTE = 60 * 1000;

describe('pre-authorization expiry (payment.authorization_expiring, payment_not_capturable)', function () {
  this.timeout(60_000);
  const clock = new ManualClock(new Date('2026-05-04T10:00:00.000Z'));
  let service: TestService<PaymentsServices>;
  let merchant: Merchant;
  let expiry: NotifyExpiringAuthorizations;
  const injector = new TimeoutInjector();

  const events = async (id: string) => {
    const rows = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ type: string; data: any }>>(
      'select type, data from events where object_id = ? order by sequence nulls last, id',
      [id],
    );
    return rows.map((r) => ({ type: r.type, data: typeof r.data === 'string' ? JSON.parse(r.data) : r.data }));
  };

  before(async () => {
    service = await startTestServiceWith(moduleList().with(IDENTITY_MODULE).with(NO_FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule({ expiryScanIntervalMs: 3_600_000, decorateConnectors: injector.decorate })), {
      transport: 'in-process',
      clock,
    });
    expiry = service.services.authorizationExpiry;
    merchant = await service.merchant('Expiry');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' }, costBasisPoints: 100 });
    expect(account.status).to.equal(201);
  });
  after(async () => {
    await service?.stop();
  });

  it('deadline is 15 days (7 for Mastercard); the notice goes out once, 24 hours before; capture after the deadline is 409', async () => {
    const created = clock.now();
    const visa = await merchant.sandbox.post('/v1/payments', { amount: 9_000, captureMethod: 'manual', card: { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111' } });
    expect(visa.body.status).to.equal('authorized');
    expect(visa.body.authorizationExpiresAt).to.equal(new Date(created.getTime() + 15 * DAY).toISOString());
    const master = await merchant.sandbox.post('/v1/payments', { amount: 9_000, captureMethod: 'manual', card: { token: 'tok_sandbox_approved', brand: 'mastercard', last4: '4444' } });
    expect(master.body.authorizationExpiresAt).to.equal(new Date(created.getTime() + 7 * DAY).toISOString());

    clock.advance(6 * DAY - MINUTE);
    expect(await expiry.run()).to.equal(0);
    clock.advance(2 * MINUTE);
    expect(await expiry.run()).to.equal(1);
    const masterEvents = await events(master.body.id);
    expect(masterEvents.map((e) => e.type)).to.deep.equal(['payment.authorized', 'payment.authorization_expiring']);
    expect(masterEvents[1]!.data.object).to.include({ status: 'authorized', expiryAction: 'notify', authorizationExpiresAt: master.body.authorizationExpiresAt });
    expect(await expiry.run()).to.equal(0);

    clock.advance(8 * DAY);
    expect(await expiry.run()).to.equal(1);
    expect((await events(visa.body.id)).map((e) => e.type)).to.deep.equal(['payment.authorized', 'payment.authorization_expiring']);

    const stillOk = await merchant.sandbox.post(`/v1/payments/${visa.body.id}/capture`, { amount: 1_000 });
    expect(stillOk.status, JSON.stringify(stillOk.body)).to.equal(201);

    clock.advance(2 * DAY);
    const late = await merchant.sandbox.post(`/v1/payments/${master.body.id}/capture`, {});
    expect(late.status).to.equal(409);
    expect(late.body.error.code).to.equal('payment_not_capturable');
    const view = await merchant.sandbox.get(`/v1/payments/${master.body.id}`);
    expect(view.body.allowedActions).to.deep.equal(['void']);
  });

  it('a capture requested before the deadline whose answer was lost is recorded when repeated after it, once', async () => {
    const visa = await merchant.sandbox.post('/v1/payments', { amount: 8_000, captureMethod: 'manual', card: { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111' } });
    const id = visa.body.id as string;
    clock.set(new Date(Date.parse(visa.body.authorizationExpiresAt) - MINUTE));
    injector.loseNextAnswer('capture');
    const lost = await merchant.sandbox.post(`/v1/payments/${id}/capture`, { amount: 5_000 });
    expect(lost.status).to.equal(503);
    expect(lost.body.error.code).to.equal('connector_unavailable');
    expect(lost.body.error.message).to.match(/repeat the same request/);

    clock.advance(2 * MINUTE);
    const waiting = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
    expect(waiting.pendingOperation).to.deep.equal({
      kind: 'capture',
      amount: 5_000,
      inFlight: false,
      automaticRetryAt: new Date(Date.parse(visa.body.authorizationExpiresAt) - MINUTE + 30_000).toISOString(),
    });
    expect(waiting.allowedActions).to.deep.equal(['capture']);
    const other = await merchant.sandbox.post(`/v1/payments/${id}/capture`, {});
    expect(other.status).to.equal(409);
    expect(other.body.error.code).to.equal('invalid_state');
    expect(other.body.error.message).to.match(/capture of 5000 .* ended without an answer/);

    const repeated = await merchant.sandbox.post(`/v1/payments/${id}/capture`, { amount: 5_000 });
    expect(repeated.status, JSON.stringify(repeated.body)).to.equal(201);
    expect(repeated.body).to.include({ status: 'captured', capturedAmount: 5_000 });
    const keys = injector.operationKeys.filter((k) => k.kind === 'capture').slice(-2).map((k) => k.idempotencyKey);
    expect(keys[1]).to.equal(keys[0]);
    expect((await events(id)).filter((e) => e.type === 'payment.captured')).to.have.length(1);
    const again = await merchant.sandbox.post(`/v1/payments/${id}/capture`, { amount: 5_000 });
    expect(again.status).to.equal(409);
  });

  describe("the account's near-expiry action (config preAuthorizationExpiryAction), carried out by the worker", () => {
    const withAction = async (name: string, action: string) => {
      const m = await service.merchant(name);
      const account = await m.sandbox.post('/v1/connector-accounts', {
        connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: `m_${name}`, apiKey: 'k1' }, config: { preAuthorizationExpiryAction: action },
      });
      expect(account.status, JSON.stringify(account.body)).to.equal(201);
      expect(account.body.config.preAuthorizationExpiryAction).to.equal(action);
      return m;
    };
    const authorize = async (m: Merchant) => {
      const r = await m.sandbox.post('/v1/payments', { amount: 7_000, captureMethod: 'manual', card: { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111' } });
      expect(r.body.status).to.equal('authorized');
      // The account's action shows from the approval on, not only from the notice.
      const configured = (await m.sandbox.get('/v1/connector-accounts')).body.data[0].config.preAuthorizationExpiryAction;
      expect(r.body.expiryAction).to.equal(configured);
      return r.body as { id: string; authorizationExpiresAt: string };
    };
    const toNotice = (p: { authorizationExpiresAt: string }) => clock.set(new Date(Date.parse(p.authorizationExpiresAt) - DAY + MINUTE));

    it('capture: a day before the deadline the authorization is captured in full, after the notice', async () => {
      const m = await withAction('Expiry capture', 'capture');
      const p = await authorize(m);
      toNotice(p);
      await expiry.run();
      const view = (await m.sandbox.get(`/v1/payments/${p.id}`)).body;
      expect(view).to.include({ status: 'captured', capturedAmount: 7_000, expiryAction: 'capture' });
      const types = (await events(p.id)).map((e) => e.type);
      expect(types).to.deep.equal(['payment.authorized', 'payment.authorization_expiring', 'payment.captured']);
      await expiry.run();
      expect((await events(p.id)).map((e) => e.type)).to.deep.equal(types);
    });

    it('void: the authorization is voided instead', async () => {
      const m = await withAction('Expiry void', 'void');
      const p = await authorize(m);
      toNotice(p);
      await expiry.run();
      expect((await m.sandbox.get(`/v1/payments/${p.id}`)).body).to.include({ status: 'voided', expiryAction: 'void' });
      expect((await events(p.id)).map((e) => e.type)).to.deep.equal(['payment.authorized', 'payment.authorization_expiring', 'payment.voided']);
    });

    it('an acquirer that fails the capture is asked again at the next scan, until it captures', async () => {
      const m = await withAction('Expiry capture retried', 'capture');
      const p = await authorize(m);
      toNotice(p);
      injector.injectNext('capture', 'not-sent');
      await expiry.run();
      const waiting = (await m.sandbox.get(`/v1/payments/${p.id}`)).body;
      expect(waiting).to.include({ status: 'authorized', expiryAction: 'capture' });
      clock.advance(MINUTE);
      await expiry.run();
      expect((await m.sandbox.get(`/v1/payments/${p.id}`)).body).to.include({ status: 'captured', capturedAmount: 7_000 });
      expect((await events(p.id)).filter((e) => e.type === 'payment.captured')).to.have.length(1);
    });

    it('an acquirer that refuses the capture is not asked again; GET shows the refusal and the merchant may still act', async () => {
      const m = await withAction('Expiry capture refused', 'capture');
      const p = await authorize(m);
      toNotice(p);
      injector.injectNext('capture', 'refused');
      const callsBefore = injector.operationKeys.length;
      await expiry.run();
      const refused = (await m.sandbox.get(`/v1/payments/${p.id}`)).body;
      expect(refused).to.include({ status: 'authorized', expiryAction: 'capture' });
      expect(refused.expiryActionRefusal.message).to.match(/refused/);
      expect(refused.expiryActionRefusal.at).to.equal(clock.now().toISOString());
      for (let scan = 0; scan < 3; scan++) {
        clock.advance(MINUTE);
        await expiry.run();
      }
      expect((await m.sandbox.get(`/v1/payments/${p.id}`)).body.status).to.equal('authorized');
      expect(injector.operationKeys.length).to.equal(callsBefore); // the refusal never reached the sandbox; nothing since
      expect((await events(p.id)).map((e) => e.type)).to.deep.equal(['payment.authorized', 'payment.authorization_expiring']);
      const voided = await m.sandbox.post(`/v1/payments/${p.id}/void`, {});
      expect(voided.status, JSON.stringify(voided.body)).to.equal(201);
    });

    it('an unknown action is refused when the account is configured', async () => {
      const m = await service.merchant('Expiry bad action');
      const account = await m.sandbox.post('/v1/connector-accounts', {
        connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm_bad', apiKey: 'k1' }, config: { preAuthorizationExpiryAction: 'refund' },
      });
      expect(account.status).to.equal(422);
      expect(account.body.error.param).to.equal('body.config.preAuthorizationExpiryAction');
    });
  });
});

