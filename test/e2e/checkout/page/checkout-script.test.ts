import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { startTestService, type Merchant, type TestService } from '../../../support/test-service';
import type { ProductServices } from '../../../../infrastructure/main/modules';
import { launchCheckoutBrowser, payWithCard, waitForHeading, type CheckoutBrowser } from '../../../support/checkout-browser';

/**
 * checkout.js mounted in a merchant's page served from another origin (contract.md 9): the script finds the service
 * from its own address, adds its stylesheet, and the page's calls cross origins by CORS (public routes and vault).
 */
describe('checkout.js in a page of another origin (Chromium)', function () {
  this.timeout(180_000);
  let service: TestService<ProductServices>;
  let merchant: Merchant;
  let browser: CheckoutBrowser;
  let page: Page;
  let shop: http.Server;
  let shopUrl: string;
  /** What the shop's page mounts: set per case. */
  let mountWith = { paymentId: '', clientSecret: '' };

  before(async () => {
    service = await startTestService({ transport: 'in-process' });
    merchant = await service.merchant('Loja Embutida');
    await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
    // The merchant's own site: another port of localhost, so another origin than the service's 127.0.0.1.
    shop = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>Loja</title></head><body>
<h1>Finalizar compra</h1><div id="checkout"></div>
<script src="${service.url}/checkout.js"></script>
<script>window.mounted = PaymentCheckout.mount(document.getElementById('checkout'), ${JSON.stringify(mountWith)});</script>
</body></html>`);
    });
    await new Promise<void>((resolve) => shop.listen(0, 'localhost', resolve));
    shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}`;
    browser = await launchCheckoutBrowser();
    page = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    shop?.closeAllConnections();
    await new Promise((resolve) => (shop ? shop.close(resolve) : resolve(undefined)));
    await service?.stop();
  });

  it('mounts the checkout and takes a reversible decline then an approval across origins', async () => {
    const created = await merchant.sandbox.post('/v1/payments', { amount: 5_000 });
    mountWith = { paymentId: created.body.id, clientSecret: created.body.clientSecret };
    const origins = new Set<string>();
    page.on('request', (request) => origins.add(new URL(request.url()).origin));
    await page.goto(`${shopUrl}/finalizar`);
    expect(new URL(page.url()).origin).not.to.equal(new URL(service.url).origin);
    await waitForHeading(page, 'Pagamento');
    expect(await page.locator('h2.pc-heading').count(), 'a section of the shop\'s page: h2').to.equal(1);
    expect(await page.locator(`link[rel="stylesheet"][href="${service.url}/checkout.css"]`).count()).to.equal(1);
    expect(await page.evaluate<string>("getComputedStyle(document.querySelector('.pc-pay')).backgroundColor"), 'styled by checkout.css').to.equal('rgb(29, 78, 216)');

    await payWithCard(page, '4000000000009995');
    await page.locator('.pc-decline', { hasText: 'Você tem mais 2 tentativas.' }).waitFor({ timeout: 45_000 });
    await payWithCard(page, '4111111111111111');
    await waitForHeading(page, 'Pagamento aprovado');
    expect((await merchant.sandbox.get(`/v1/payments/${created.body.id}`)).body.status).to.equal('captured');
    expect(origins).to.include(new URL(service.url).origin);
    expect(browser.consoleErrors, 'no CORS or other error').to.deep.equal([]);
  });

  it('refuses to mount without paymentId and clientSecret, with a sentence', async () => {
    const message = await page.evaluate<string | null>(`(() => {
      try {
        PaymentCheckout.mount(document.body, { paymentId: 'pay_1' });
        return null;
      } catch (error) {
        return error.message;
      }
    })()`);
    expect(message).to.equal('PaymentCheckout.mount needs {paymentId, clientSecret}');
  });
});
