import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { startTestService, type Merchant, type TestService } from '../../../support/test-service';
import type { ProductServices } from '../../../../infrastructure/main/modules';
import { launchCheckoutBrowser, payWithCard, seriousAccessibilityViolations, waitForHeading, type CheckoutBrowser } from '../../../support/checkout-browser';

/** The page's own assets (HTML, checkout.js, checkout.css), gzip-compressed, stay under this (issue 24 item 3). */
const WEIGHT_BUDGET_BYTES = 100 * 1024;

/**
 * The hosted page has no accessibility violation of serious or critical impact (axe-core, run in Chromium on each
 * step the buyer sees: the form, its errors, a decline, the end) and keeps within its weight budget.
 */
describe('hosted checkout page: accessibility and weight', function () {
  this.timeout(180_000);
  let service: TestService<ProductServices>;
  let merchant: Merchant;
  let browser: CheckoutBrowser;
  let page: Page;

  const expectNoSeriousViolations = async (step: string) => {
    const violations = await seriousAccessibilityViolations(page);
    expect(violations, `${step}: ${JSON.stringify(violations, null, 2)}`).to.deep.equal([]);
  };

  before(async () => {
    service = await startTestService({ transport: 'in-process' });
    merchant = await service.merchant('Loja Acessível');
    await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
    browser = await launchCheckoutBrowser();
    page = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('has no serious or critical axe violation on the form, its errors, a decline and the end', async () => {
    const created = await merchant.sandbox.post('/v1/payments', { amount: 9_990, description: 'Pedido 7' });
    await page.goto(`${service.url}/checkout/${created.body.id}#${created.body.clientSecret}`);
    await waitForHeading(page, 'Pagamento');
    await expectNoSeriousViolations('card form');
    await page.getByRole('button', { name: /^Pagar / }).click();
    await page.getByRole('alert').filter({ hasText: 'Corrija' }).waitFor();
    await expectNoSeriousViolations('field errors');
    await payWithCard(page, '4000000000009995');
    await page.locator('.pc-decline').waitFor({ timeout: 45_000 });
    await expectNoSeriousViolations('after a decline');
    await payWithCard(page, '4111111111111111');
    await waitForHeading(page, 'Pagamento aprovado');
    await expectNoSeriousViolations('end state');
  });

  it('is keyboard-usable: Tab reaches every field and the pay button in order', async () => {
    const created = await merchant.sandbox.post('/v1/payments', { amount: 1_000 });
    await page.goto(`${service.url}/checkout/${created.body.id}#${created.body.clientSecret}`);
    await waitForHeading(page, 'Pagamento');
    const reached: string[] = [];
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      reached.push(await page.evaluate<string>("document.activeElement?.getAttribute('autocomplete') ?? document.activeElement?.textContent ?? ''"));
    }
    expect(reached).to.deep.equal(['cc-number', 'cc-exp', 'cc-csc', 'cc-name', 'Pagar R$\u00a010,00']);
  });

  it('keeps its own assets under 100 KB gzip-compressed', async () => {
    const created = await merchant.sandbox.post('/v1/payments', { amount: 1_000 });
    let total = 0;
    for (const path of [`/checkout/${created.body.id}`, '/checkout.js', '/checkout.css']) {
      const response = await fetch(`${service.url}${path}`);
      expect(response.status, path).to.equal(200);
      total += gzipSync(Buffer.from(await response.arrayBuffer()), { level: 9 }).length;
    }
    expect(total).to.be.greaterThan(1000).and.lessThan(WEIGHT_BUDGET_BYTES);
  });
});
