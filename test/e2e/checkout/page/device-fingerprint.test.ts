import { expect } from 'chai';
import type { Page, Request } from 'playwright-core';
import { startTestService, type Merchant, type TestService } from '../../../support/test-service';
import type { ProductServices } from '../../../../infrastructure/main/modules';
import { launchCheckoutBrowser, cspViolations, payWithCard, waitForHeading, type CheckoutBrowser } from '../../../support/checkout-browser';

/**
 * The hosted page loads the antifraud provider's device fingerprint script before the card form when the public
 * view names one (spec, Payments rule 6), under the page's own CSP; without one it loads none.
 */
describe('hosted checkout page: device fingerprint script (Chromium)', function () {
  this.timeout(180_000);
  let service: TestService<ProductServices>;
  let withAnalysis: Merchant;
  let withoutAnalysis: Merchant;
  let customerId: string;
  let browser: CheckoutBrowser;
  let page: Page;
  let requests: Request[] = [];

  const createCheckout = async (m: Merchant, body: Record<string, unknown> = {}) => {
    const r = await m.sandbox.post('/v1/payments', { amount: 5_000, ...body });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return { id: r.body.id as string, secret: r.body.clientSecret as string };
  };
  const open = async (id: string, secret: string) => {
    requests = [];
    await page.goto(`${service.url}/checkout/${id}#${secret}`);
  };
  const scriptRequests = () => requests.filter((r) => new URL(r.url()).pathname === '/checkout/device-fingerprint.js');

  before(async () => {
    service = await startTestService({ transport: 'in-process' });
    withAnalysis = await service.merchant('Loja Antifraude');
    const account = await withAnalysis.sandbox.post('/v1/connector-accounts', {
      connectorSlug: 'sandbox', name: 'with antifraud', credentials: { merchantId: 'm_fp_page', apiKey: 'sk_test' }, config: { antifraudEnabled: true },
    });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
    customerId = (await withAnalysis.sandbox.post('/v1/customers', { name: 'Rita Lima', email: 'rita@example.com', document: '52998224725' })).body.id;
    withoutAnalysis = await service.merchant('Loja Simples');
    expect((await withoutAnalysis.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm_plain_page', apiKey: 'sk_test' } })).status).to.equal(201);
    browser = await launchCheckoutBrowser();
    page = await browser.newPage();
    page.on('request', (request) => requests.push(request));
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
  });
  afterEach(() => {
    expect(cspViolations(browser), 'no CSP violation').to.deep.equal([]);
  });

  it('runs the script of the view before the card form shows, then the card is approved with the session', async () => {
    const { id, secret } = await createCheckout(withAnalysis, { customerId });
    const sessionId = (await service.client().get(`/v1/public/payments/${id}`, { 'Service-Client-Secret': secret })).body.deviceFingerprint.sessionId;
    await open(id, secret);
    await waitForHeading(page, 'Pagamento');
    // The form is shown only once the script ran: it has marked the document with its session already.
    expect(await page.locator('html').getAttribute('data-sandbox-device-fingerprint')).to.equal(sessionId);
    expect(scriptRequests().map((r) => r.url())).to.deep.equal([`${service.url}/checkout/device-fingerprint.js?session_id=${sessionId}`]);
    await payWithCard(page, '4111111111111111');
    await waitForHeading(page, 'Pagamento aprovado');
    expect(scriptRequests(), 'loaded once').to.have.length(1);
    const assessment = (await withAnalysis.sandbox.get(`/v1/payments/${id}`)).body.antifraud[0];
    expect(assessment.triggeredRules, 'the acquirer had the device session').to.deep.equal([]);
  });

  it('loads no script when the view has none', async () => {
    const { id, secret } = await createCheckout(withoutAnalysis);
    await open(id, secret);
    await waitForHeading(page, 'Pagamento');
    expect(scriptRequests()).to.deep.equal([]);
    expect(await page.locator('html').getAttribute('data-sandbox-device-fingerprint')).to.equal(null);
  });
});
