import { expect } from 'chai';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import type { ProductServices } from '../../../infrastructure/main/modules';

/**
 * The device fingerprint of the transparent checkout through the REST edge (spec, Payments rule 6; public view
 * deviceFingerprint): an account that runs the acquirer's antifraud analysis gets a fingerprint session per checkout,
 * the view names the provider's script (served by the service for the sandbox), and the authorization carries the
 * session id to the sandbox acquirer over gRPC, whose analysis flags an authorization without one
 * (device_fingerprint_missing).
 */
describe('checkout device fingerprint (REST edge, sandbox vault and acquirer)', function () {
  this.timeout(120_000);
  let service: TestService<ProductServices>;
  let withAnalysis: Merchant;
  let withoutAnalysis: Merchant;
  let customerId: string;

  const pub = (secret: string, extra: Record<string, string> = {}) => ({ 'Service-Client-Secret': secret, ...extra });
  const key = () => `k_${Math.random().toString(36).slice(2)}`;

  const createCheckout = async (m: Merchant, body: Record<string, unknown> = {}) => {
    const r = await m.sandbox.post('/v1/payments', { amount: 4_200, ...body });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return { id: r.body.id as string, secret: r.body.clientSecret as string };
  };

  const tokenize = async (id: string, secret: string) => {
    const session = await service.client().post(`/v1/public/payments/${id}/tokenization-session`, undefined, pub(secret));
    expect(session.status, JSON.stringify(session.body)).to.equal(201);
    const vault = await fetch(session.body.tokenizeUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Service-Client-Secret': secret },
      body: JSON.stringify({ number: '4111111111111111', cvv: '123', expMonth: 12, expYear: 2030, holderName: 'Rita Lima' }),
    });
    expect(vault.status).to.equal(201);
    return (await vault.json()) as { token: string; brand: string; bin: string; last4: string };
  };

  const assessmentOf = async (m: Merchant, id: string) => {
    const view = (await m.sandbox.get(`/v1/payments/${id}`)).body;
    expect(view.antifraud, JSON.stringify(view)).to.have.length(1);
    return view.antifraud[0];
  };

  before(async () => {
    service = await startTestService({ transport: 'in-process' });
    withAnalysis = await service.merchant('Loja Antifraude');
    const account = await withAnalysis.sandbox.post('/v1/connector-accounts', {
      connectorSlug: 'sandbox', name: 'with antifraud', credentials: { merchantId: 'm_fp', apiKey: 'sk_test' }, config: { antifraudEnabled: true },
    });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
    // The sandbox's analysis needs the customer's document and e-mail (else it is skipped).
    customerId = (await withAnalysis.sandbox.post('/v1/customers', { name: 'Rita Lima', email: 'rita@example.com', document: '52998224725' })).body.id;
    withoutAnalysis = await service.merchant('Loja Simples');
    expect((await withoutAnalysis.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm_plain', apiKey: 'sk_test' } })).status).to.equal(201);
  });
  after(async () => {
    await service?.stop();
  });

  it('the public view of a checkout charged by an account with the analysis names the provider script and a session; the service serves the script', async () => {
    const { id, secret } = await createCheckout(withAnalysis, { customerId });
    const view = await service.client().get(`/v1/public/payments/${id}`, pub(secret));
    expect(view.status).to.equal(200);
    const fingerprint = view.body.deviceFingerprint;
    expect(fingerprint).to.have.keys('provider', 'sessionId', 'scriptUrl');
    expect(fingerprint.provider).to.equal('sandbox-acquirer-fraud');
    expect(fingerprint.sessionId).to.match(/^[A-Za-z0-9_-]{1,88}$/);
    expect(fingerprint.scriptUrl).to.equal(`/checkout/device-fingerprint.js?session_id=${fingerprint.sessionId}`);
    // Each checkout its own session.
    const other = await createCheckout(withAnalysis, { customerId });
    expect((await service.client().get(`/v1/public/payments/${other.id}`, pub(other.secret))).body.deviceFingerprint.sessionId).not.to.equal(fingerprint.sessionId);

    const script = await fetch(`${service.url}${fingerprint.scriptUrl}`);
    expect(script.status).to.equal(200);
    expect(script.headers.get('content-type')).to.match(/^application\/javascript/);
    expect(await script.text()).to.include('data-sandbox-device-fingerprint');
  });

  it('an account without the analysis opens no session: deviceFingerprint null', async () => {
    const { id, secret } = await createCheckout(withoutAnalysis);
    const view = await service.client().get(`/v1/public/payments/${id}`, pub(secret));
    expect(view.status).to.equal(200);
    expect(view.body.deviceFingerprint).to.equal(null);
  });

  it('the public confirm sends the session id with the authorization: the sandbox analysis has the device; the view then has no script', async () => {
    // Control: a merchant card payment on the same account sends no session id, and the sandbox says so.
    const direct = await withAnalysis.sandbox.post('/v1/payments', { amount: 1_100, card: { token: 'tok_sandbox_approved' }, customerId });
    expect(direct.status, JSON.stringify(direct.body)).to.equal(201);
    expect((await assessmentOf(withAnalysis, direct.body.id)).triggeredRules).to.deep.equal(['device_fingerprint_missing']);

    const { id, secret } = await createCheckout(withAnalysis, { customerId });
    const card = await tokenize(id, secret);
    const r = await service.client().post(`/v1/public/payments/${id}/confirm`, { card }, pub(secret, { 'Idempotency-Key': key() }));
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body.status).to.equal('captured');
    expect(r.body.deviceFingerprint).to.equal(null);
    const assessment = await assessmentOf(withAnalysis, id);
    expect(assessment).to.include({ provider: 'sandbox-acquirer-fraud', providerStatus: 'accept' });
    expect(assessment.triggeredRules).to.deep.equal([]);
  });

  it('the server confirm sends the checkout session too, or the body\'s own fraudAnalysis.fingerprintSessionId', async () => {
    for (const body of [{}, { fraudAnalysis: { fingerprintSessionId: 'merchant_script-session_1' } }]) {
      const { id, secret } = await createCheckout(withAnalysis, { customerId });
      const card = await tokenize(id, secret);
      const r = await withAnalysis.sandbox.post(`/v1/payments/${id}/confirm`, { card, ...body }, { 'Idempotency-Key': key() });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      expect(r.body.status).to.equal('captured');
      expect((await assessmentOf(withAnalysis, id)).triggeredRules, JSON.stringify(body)).to.deep.equal([]);
    }
  });
});
