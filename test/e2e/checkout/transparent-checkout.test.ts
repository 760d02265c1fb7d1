import { expect } from 'chai';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import type { ProductServices } from '../../../infrastructure/main/modules';
import type { ApiResult } from '../../support/api-client';

const HOUR = 3_600_000;

/**
 * The transparent checkout through the REST edge (issue 24 items 1-2): creation without a card, the public routes
 * with the client secret, the sandbox vault over HTTP and the sandbox acquirer over gRPC, on PostgreSQL, with a
 * controllable clock for the 24-hour deadline.
 */
describe('transparent checkout (REST edge, sandbox vault and acquirer)', function () {
  this.timeout(120_000);
  const clock = new ManualClock(new Date());
  let service: TestService<ProductServices>;
  let merchant: Merchant;
  let accountId: string;

  const eventsOf = async (id: string) => {
    const rows = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ type: string; data: any }>>(
      'select type, data from events where object_id = ? order by sequence nulls last, id',
      [id],
    );
    return rows.map((r) => ({ type: r.type, data: typeof r.data === 'string' ? JSON.parse(r.data) : r.data }));
  };
  const pub = (secret: string, extra: Record<string, string> = {}) => ({ 'Service-Client-Secret': secret, ...extra });
  const key = () => `k_${Math.random().toString(36).slice(2)}`;

  const createCheckout = async (body: Record<string, unknown> = {}, m: Merchant = merchant): Promise<{ id: string; secret: string; body: any }> => {
    const r = await m.sandbox.post('/v1/payments', { amount: 12_345, ...body });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return { id: r.body.id, secret: r.body.clientSecret, body: r.body };
  };

  /** The buyer's browser: a session, the card posted to the vault, the token back. */
  const tokenize = async (id: string, secret: string, number: string) => {
    const session = await service.client().post(`/v1/public/payments/${id}/tokenization-session`, undefined, pub(secret));
    expect(session.status, JSON.stringify(session.body)).to.equal(201);
    const vault = await fetch(session.body.tokenizeUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Service-Client-Secret': secret },
      body: JSON.stringify({ number, cvv: '123', expMonth: 12, expYear: 2030, holderName: 'Ana Souza' }),
    });
    const card = (await vault.json()) as { token: string; brand: string; bin: string; last4: string };
    expect(vault.status, JSON.stringify(card)).to.equal(201);
    return card;
  };

  const confirmPublic = async (id: string, secret: string, number: string, idempotencyKey = key()): Promise<ApiResult> => {
    const card = await tokenize(id, secret, number);
    return service.client().post(`/v1/public/payments/${id}/confirm`, { card }, pub(secret, { 'Idempotency-Key': idempotencyKey }));
  };

  before(async () => {
    service = await startTestService({ clock, transport: 'in-process' });
    merchant = await service.merchant('Loja Checkout');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' }, costBasisPoints: 100 });
    expect(account.status).to.equal(201);
    accountId = account.body.id;
    expect(account.body.effectiveCapabilities).to.include('browser_tokenization');
  });
  after(async () => {
    await service?.stop();
  });

  describe('creation', () => {
    it('a card payment without card is requires_payment_method with a client secret, 24 h deadline and attempt counters; nothing sent', async () => {
      const { id, secret, body } = await createCheckout({ description: 'Pedido 7' });
      expect(body).to.deep.include({ status: 'requires_payment_method', attempts: [], connectorAccountId: null });
      expect(secret).to.match(new RegExp(`^${id}_secret_[A-Za-z0-9_-]{43}$`));
      expect(Date.parse(body.actionExpiresAt) - clock.now().getTime()).to.equal(24 * HOUR);
      expect(body.checkout).to.deep.equal({ attemptsUsed: 0, attemptsMax: 3, attemptsRemaining: 3, endedBy: null });
      const view = await merchant.sandbox.get(`/v1/payments/${id}`);
      expect(view.body.clientSecret).to.equal(secret);
      // The secret is kept sealed: its clear text is nowhere in the stored payment.
      const [row] = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ doc: unknown }>>('select doc::text as doc from payments where id = ?', [id]);
      expect(String(row!.doc)).not.to.include(secret);
      expect(await eventsOf(id)).to.deep.equal([]);
    });

    it('tokenizationAccountId must name an enabled account that tokenizes in the browser; none or several is 422', async () => {
      const bad = await merchant.sandbox.post('/v1/payments', { amount: 100, tokenizationAccountId: 'ca_unknown' });
      expect(bad.status).to.equal(422);
      expect(bad.body.error).to.include({ code: 'validation_failed', param: 'body.tokenizationAccountId' });
      const named = await merchant.sandbox.post('/v1/payments', { amount: 100, tokenizationAccountId: accountId });
      expect(named.status).to.equal(201);

      const none = await service.merchant('No accounts');
      const refused = await none.sandbox.post('/v1/payments', { amount: 100 });
      expect(refused.status).to.equal(422);
      expect(refused.body.error.param).to.equal('body.tokenizationAccountId');
      const two = await service.merchant('Two accounts');
      for (const name of ['a', 'b']) await two.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name, credentials: { merchantId: 'm', apiKey: 'k' } });
      const several = await two.sandbox.post('/v1/payments', { amount: 100 });
      expect(several.status).to.equal(422);
      expect(several.body.error.message).to.match(/exactly one/);
    });
  });

  describe('public routes', () => {
    it('refuse a wrong or missing client secret with 401, for a known or unknown payment alike', async () => {
      const { id, secret } = await createCheckout();
      for (const [paymentId, headers] of [[id, pub(`${secret}x`)], [id, {}], ['pay_unknown', pub(secret)]] as const) {
        const r = await service.client().get(`/v1/public/payments/${paymentId}`, headers);
        expect(r.status).to.equal(401);
        expect(r.body.error).to.include({ code: 'invalid_client_secret' });
        expect(r.body.error.requestId).to.match(/^req_/);
      }
    });

    it('the public view shows no internal ids nor connector data', async () => {
      const customer = await merchant.sandbox.post('/v1/customers', { name: 'Ana Souza', email: 'ana@example.com' });
      const { id, secret } = await createCheckout({ customerId: customer.body.id, description: 'Pedido 9' });
      const r = await service.client().get(`/v1/public/payments/${id}`, pub(secret));
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.include({ id, status: 'requires_payment_method', amount: 12_345, currency: 'BRL', canSaveCard: true, decline: null, deviceFingerprint: null });
      expect(r.body.merchant).to.deep.equal({ name: 'Loja Checkout' });
      expect(r.body.cardAttempts).to.deep.equal({ used: 0, remaining: 3, max: 3 });
      expect(r.text).not.to.include(customer.body.id);
      expect(r.text).not.to.include(accountId);
      expect(r.text).not.to.include(secret);
      expect(r.text).not.to.include(merchant.organizationId);
    });

    it('answer CORS from any origin (preflight included); merchant routes do not', async () => {
      const { id } = await createCheckout();
      const preflight = await fetch(`${service.url}/v1/public/payments/${id}/confirm`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type, service-client-secret, idempotency-key' },
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get('access-control-allow-origin')).to.equal('*');
      expect(preflight.headers.get('access-control-allow-headers')).to.match(/Service-Client-Secret/);
      const refused = await service.client().get(`/v1/public/payments/${id}`, { Origin: 'https://shop.example' });
      expect(refused.status).to.equal(401);
      expect(refused.headers.get('access-control-allow-origin'), 'a refusal is readable by the page').to.equal('*');
      const merchantRoute = await merchant.sandbox.get(`/v1/payments/${id}`, { Origin: 'https://shop.example' });
      expect(merchantRoute.headers.get('access-control-allow-origin')).to.equal(null);
    });
  });

  describe('confirmation', () => {
    it('approval through the vault: captured, client secret gone, payment.captured', async () => {
      const { id, secret } = await createCheckout();
      const r = await confirmPublic(id, secret, '4111111111111111');
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      expect(r.body).to.deep.include({ status: 'captured', decline: null });
      expect(r.body.card).to.deep.equal({ brand: 'visa', last4: '1111' });
      const view = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
      expect(view).to.deep.include({ status: 'captured', clientSecret: null, connectorAccountId: accountId });
      expect(view.checkout).to.deep.equal({ attemptsUsed: 1, attemptsMax: 3, attemptsRemaining: 2, endedBy: null });
      expect((await eventsOf(id)).map((e) => e.type)).to.deep.equal(['payment.captured']);
      // No longer awaiting a card: 409, and the tokenization session too.
      const again = await service.client().post(`/v1/public/payments/${id}/tokenization-session`, undefined, pub(secret));
      expect(again.status).to.equal(409);
      expect(again.body.error.code).to.equal('invalid_state');
    });

    it('a reversible decline returns to requires_payment_method (payment.attempt_declined, payload rule 2), then a second card is approved', async () => {
      const { id, secret } = await createCheckout();
      const declined = await confirmPublic(id, secret, '4000000000009995');
      expect(declined.status).to.equal(201);
      expect(declined.body).to.deep.include({ status: 'requires_payment_method' });
      expect(declined.body.decline).to.include({ reason: 'INSUFFICIENT_FUNDS' });
      expect(declined.body.decline.consumerMessage).to.be.a('string').and.not.equal('');
      expect(declined.body.cardAttempts).to.deep.equal({ used: 1, remaining: 2, max: 3 });
      const merchantView = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
      expect(merchantView.clientSecret, 'still shown while awaiting a card').to.equal(secret);

      const [event] = await eventsOf(id);
      expect(event!.type).to.equal('payment.attempt_declined');
      expect(event!.data.object).to.deep.equal({
        object: 'payment',
        id,
        status: 'requires_payment_method',
        actionExpiresAt: merchantView.actionExpiresAt,
        decline: {
          reason: 'INSUFFICIENT_FUNDS',
          label: merchantView.decline.label,
          reversibility: 'REVERSIBLE',
          retryAction: 'RETRY_LATER',
          consumerMessage: merchantView.decline.consumerMessage,
          rawCode: '51',
        },
        checkout: { attemptsUsed: 1, attemptsMax: 3, attemptsRemaining: 2 },
      });
      expect(event!.data.previousAttributes).to.deep.equal({ status: 'processing' });

      const approved = await confirmPublic(id, secret, '4111111111111111');
      expect(approved.body).to.deep.include({ status: 'captured', decline: null });
      expect((await eventsOf(id)).map((e) => e.type)).to.deep.equal(['payment.attempt_declined', 'payment.captured']);
    });

    it('the same Idempotency-Key replays the answer without a second attempt', async () => {
      const { id, secret } = await createCheckout();
      const card = await tokenize(id, secret, '4000000000009995');
      const k = key();
      const first = await service.client().post(`/v1/public/payments/${id}/confirm`, { card }, pub(secret, { 'Idempotency-Key': k }));
      const repeated = await service.client().post(`/v1/public/payments/${id}/confirm`, { card }, pub(secret, { 'Idempotency-Key': k }));
      expect(repeated.status).to.equal(first.status);
      expect(repeated.headers.get('idempotent-replayed')).to.equal('true');
      expect(repeated.body).to.deep.equal(first.body);
      expect((await merchant.sandbox.get(`/v1/payments/${id}`)).body.checkout.attemptsUsed).to.equal(1);
      const missing = await service.client().post(`/v1/public/payments/${id}/confirm`, { card }, pub(secret));
      expect(missing.status).to.equal(422);
      expect(missing.body.error.param).to.equal('header.Idempotency-Key');
    });

    it('an irreversible decline ends it at once: failed, endedBy irreversible, payment.failed', async () => {
      const { id, secret } = await createCheckout();
      const r = await confirmPublic(id, secret, '4000000000000069');
      expect(r.body).to.deep.include({ status: 'failed' });
      expect(r.body.checkout).to.deep.equal({ endedBy: 'irreversible' });
      const events = await eventsOf(id);
      expect(events.map((e) => e.type)).to.deep.equal(['payment.failed']);
      expect(events[0]!.data.object.checkout).to.deep.equal({ attemptsUsed: 1, attemptsMax: 3, attemptsRemaining: 2, endedBy: 'irreversible' });
    });

    it('the third reversible decline is the attempt limit: failed, endedBy attempt_limit', async () => {
      const { id } = await createCheckout();
      for (let i = 0; i < 3; i++) {
        const r = await merchant.sandbox.post(`/v1/payments/${id}/confirm`, { card: { token: 'tok_sandbox_insufficient_funds' } }, { 'Idempotency-Key': key() });
        expect(r.status, JSON.stringify(r.body)).to.equal(201);
        expect(r.body.status).to.equal(i < 2 ? 'requires_payment_method' : 'failed');
      }
      const view = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
      expect(view.checkout).to.deep.equal({ attemptsUsed: 3, attemptsMax: 3, attemptsRemaining: 0, endedBy: 'attempt_limit' });
      expect(view.clientSecret).to.equal(null);
      expect((await eventsOf(id)).map((e) => e.type)).to.deep.equal(['payment.attempt_declined', 'payment.attempt_declined', 'payment.failed']);
      const late = await merchant.sandbox.post(`/v1/payments/${id}/confirm`, { card: { token: 'tok_sandbox_approved' } }, { 'Idempotency-Key': key() });
      expect(late.status).to.equal(409);
    });

    it('a technical failure on every account ends it: failed, endedBy not_issuer_decline', async () => {
      const { id } = await createCheckout();
      const r = await merchant.sandbox.post(`/v1/payments/${id}/confirm`, { card: { token: 'tok_sandbox_processing_error' } });
      expect(r.body.status).to.equal('failed');
      expect(r.body.checkout.endedBy).to.equal('not_issuer_decline');
    });

    it('saveCard keeps the approved token as a saved card of the customer; without customerId it is 422 and changes nothing', async () => {
      const plain = await createCheckout();
      const refused = await merchant.sandbox.post(`/v1/payments/${plain.id}/confirm`, { card: { token: 'tok_sandbox_approved' }, saveCard: true });
      expect(refused.status).to.equal(422);
      expect(refused.body.error.param).to.equal('body.saveCard');
      expect((await merchant.sandbox.get(`/v1/payments/${plain.id}`)).body.checkout.attemptsUsed).to.equal(0);

      const customer = await merchant.sandbox.post('/v1/customers', { name: 'Bia Lima' });
      const { id, secret } = await createCheckout({ customerId: customer.body.id });
      const card = await tokenize(id, secret, '4111111111111111');
      const r = await service.client().post(`/v1/public/payments/${id}/confirm`, { card, saveCard: true }, pub(secret, { 'Idempotency-Key': key() }));
      expect(r.body.status).to.equal('captured');
      const methods = (await merchant.sandbox.get(`/v1/customers/${customer.body.id}/payment-methods`)).body.data;
      expect(methods).to.have.length(1);
      expect(methods[0].card).to.include({ last4: '1111', brand: 'visa' });
      expect(methods[0].connectorAccountId).to.equal(accountId);
    });

    it('a sale held in fraud review is authorized with fraudReview pending', async () => {
      const { id, secret } = await createCheckout();
      const r = await confirmPublic(id, secret, '4000000000000259');
      expect(r.body.status).to.equal('authorized');
      expect((await merchant.sandbox.get(`/v1/payments/${id}`)).body.fraudReview.status).to.equal('pending');
    });

    it('void cancels a checkout awaiting a card: payment.canceled, nothing sent', async () => {
      const { id } = await createCheckout();
      const r = await merchant.sandbox.post(`/v1/payments/${id}/void`, {});
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      expect(r.body).to.deep.include({ status: 'canceled', attempts: [] });
      expect((await eventsOf(id)).map((e) => e.type)).to.deep.equal(['payment.canceled']);
    });
  });

  describe('deadline and limits', () => {
    it('after 24 hours confirm and tokenization session answer 410 and the payment is canceled once', async () => {
      const { id, secret } = await createCheckout();
      clock.advance(24 * HOUR);
      const confirm = await merchant.sandbox.post(`/v1/payments/${id}/confirm`, { card: { token: 'tok_sandbox_approved' } });
      expect(confirm.status).to.equal(410);
      expect(confirm.body.error.code).to.equal('payment_expired');
      const session = await service.client().post(`/v1/public/payments/${id}/tokenization-session`, undefined, pub(secret));
      expect(session.status).to.equal(410);
      const view = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
      expect(view).to.deep.include({ status: 'canceled', clientSecret: null });
      expect(view.checkout.endedBy).to.equal('expired');
      expect((await eventsOf(id)).map((e) => e.type)).to.deep.equal(['payment.canceled']);
    });

    it('the expiry job cancels each expired checkout once, with two workers racing', async () => {
      // Checkouts of earlier tests expired when the clock moved on: swept first, so only this test's are counted.
      await service.services.checkoutExpiry.run();
      const m = await service.merchant('Expiry race');
      await m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push((await createCheckout({}, m)).id);
      const fresh = (await createCheckout({}, m)).id;
      clock.advance(24 * HOUR - 1);
      const notYet = await service.services.checkoutExpiry.run();
      expect(notYet).to.equal(0);
      clock.advance(1);
      // All seven expire now; the race decides which worker cancels each, never both.
      const counts = await Promise.all([service.services.checkoutExpiry.run(), service.services.checkoutExpiry.run()]);
      expect(counts[0]! + counts[1]!).to.equal(7);
      for (const id of [...ids, fresh]) {
        expect((await m.sandbox.get(`/v1/payments/${id}`)).body.status).to.equal('canceled');
        expect((await eventsOf(id)).map((e) => e.type)).to.deep.equal(['payment.canceled']);
      }
    });

    it('public confirm: 5 per hour per payment, counting every request (401 and 422 too), then 429 with Retry-After', async () => {
      const { id, secret } = await createCheckout();
      const answers: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await service.client().post(`/v1/public/payments/${id}/confirm`, { card: { token: 'x' } }, pub(i % 2 ? 'wrong' : secret, { 'Idempotency-Key': key() }));
        answers.push(r.status);
      }
      expect(answers).to.deep.equal([422, 401, 422, 401, 422]);
      const limited = await service.client().post(`/v1/public/payments/${id}/confirm`, { card: { token: 'tok_sandbox_approved' } }, pub(secret, { 'Idempotency-Key': key() }));
      expect(limited.status).to.equal(429);
      expect(limited.body.error.code).to.equal('rate_limited');
      expect(Number(limited.headers.get('retry-after'))).to.be.greaterThan(0);
    });

    it('tokenization session: 10 per hour per payment', async () => {
      const { id, secret } = await createCheckout();
      for (let i = 0; i < 10; i++) expect((await service.client().post(`/v1/public/payments/${id}/tokenization-session`, undefined, pub(secret))).status).to.equal(201);
      const limited = await service.client().post(`/v1/public/payments/${id}/tokenization-session`, undefined, pub(secret));
      expect(limited.status).to.equal(429);
      expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
    });
  });

  describe('checkout not configured and real providers', () => {
    it('refused credentials: 422 checkout_not_configured for the buyer, payment.checkout_not_configured once per reason', async () => {
      const m = await service.merchant('Misconfigured');
      const account = await m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'bad', credentials: { merchantId: 'm', apiKey: 'invalid' } });
      const { id, secret } = await createCheckout({}, m);
      for (let i = 0; i < 2; i++) {
        const r = await service.client().post(`/v1/public/payments/${id}/tokenization-session`, undefined, pub(secret));
        expect(r.status).to.equal(422);
        expect(r.body.error.code).to.equal('checkout_not_configured');
        expect(r.text).not.to.include(account.body.id);
      }
      const events = await eventsOf(id);
      expect(events.map((e) => e.type)).to.deep.equal(['payment.checkout_not_configured']);
      expect(events[0]!.data.object.status).to.equal('requires_payment_method');
      expect(events[0]!.data.object.error).to.deep.include({ code: 'connector_credentials_invalid', stage: 'tokenization_session', connectorAccount: { id: account.body.id, name: 'bad' } });
    });

    it('live payments (not the sandbox environment) answer hosted_checkout_required', async () => {
      const account = await merchant.live.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'live main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
      expect(account.status, JSON.stringify(account.body)).to.equal(201);
      const r = await merchant.live.post('/v1/payments', { amount: 500 });
      expect(r.status).to.equal(201);
      const session = await service.client().post(`/v1/public/payments/${r.body.id}/tokenization-session`, undefined, pub(r.body.clientSecret));
      expect(session.status).to.equal(422);
      expect(session.body.error.code).to.equal('hosted_checkout_required');
      const confirm = await service.client().post(`/v1/public/payments/${r.body.id}/confirm`, { card: { token: 'tok_sandbox_approved' } }, pub(r.body.clientSecret, { 'Idempotency-Key': key() }));
      expect(confirm.body.error.code).to.equal('hosted_checkout_required');
    });
  });
});
