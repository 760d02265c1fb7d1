import { expect } from 'chai';
import type { Page, Request } from 'playwright-core';
import { startTestService, type Merchant, type TestService } from '../../../support/test-service';
import type { ProductServices } from '../../../../infrastructure/main/modules';
import { launchCheckoutBrowser, cspViolations, payWithCard, waitForHeading, type CheckoutBrowser } from '../../../support/checkout-browser';

/**
 * The hosted checkout page (issue 24 item 3, contract.md 9) in Debian's Chromium against the whole service: the
 * sandbox vault over HTTP, the sandbox acquirer over gRPC, PostgreSQL. The card number goes to the vault only; each
 * card attempt confirms with a new Idempotency-Key; the page runs under its strict CSP without a violation.
 */
describe('hosted checkout page (Chromium)', function () {
  this.timeout(180_000);
  let service: TestService<ProductServices>;
  let merchant: Merchant;
  let browser: CheckoutBrowser;
  let page: Page;
  let requests: Request[] = [];

  const createCheckout = async (amount = 12_345): Promise<{ id: string; secret: string }> => {
    const r = await merchant.sandbox.post('/v1/payments', { amount, description: 'Pedido 42' });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return { id: r.body.id, secret: r.body.clientSecret };
  };
  const open = async (id: string, secret: string) => {
    requests = [];
    await page.goto(`${service.url}/checkout/${id}#${secret}`);
  };
  const cardPosts = (number: string) => requests.filter((r) => (r.postData() ?? '').includes(number)).map((r) => new URL(r.url()).origin);
  const confirmKeys = async () => Promise.all(requests.filter((r) => r.url().endsWith('/confirm')).map(async (r) => (await r.allHeaders())['idempotency-key']));

  before(async () => {
    service = await startTestService({ transport: 'in-process' });
    merchant = await service.merchant('Loja da Ana');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
    expect(account.status).to.equal(201);
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

  it('serves the page with a strict CSP that allows only its own assets, the service and the vault', async () => {
    const { id } = await createCheckout();
    const response = await fetch(`${service.url}/checkout/${id}`);
    expect(response.status).to.equal(200);
    const csp = response.headers.get('content-security-policy')!;
    const vaultOrigin = new URL(service.core.adapters.find((a) => a.vaultUrl)!.vaultUrl!).origin;
    expect(csp).to.equal(`default-src 'none'; script-src 'self'; style-src 'self'; img-src data:; connect-src 'self' ${vaultOrigin}; form-action 'none'; base-uri 'none'; frame-ancestors 'none'`);
    const html = await response.text();
    expect(html, 'no inline script or style').not.to.match(/<script>|<style|style=/);
    expect(html, 'nothing of the request reflected').not.to.include(id);
    expect(response.headers.get('cache-control')).to.equal('no-store');
  });

  it('approval: amount and merchant shown, the card goes to the vault only, then the end state', async () => {
    const { id, secret } = await createCheckout();
    await open(id, secret);
    await waitForHeading(page, 'Pagamento');
    expect(await page.locator('.pc-merchant').textContent()).to.equal('Pagamento para Loja da Ana');
    expect((await page.locator('.pc-amount').textContent())!.replace(/\s/g, ' ')).to.match(/R\$ 123,45$/);
    expect(await page.locator('html').getAttribute('lang')).to.equal('pt-BR');
    await page.getByLabel('Número do cartão').fill('4111111111111111');
    expect(await page.locator('.pc-brand').textContent()).to.equal('Bandeira: Visa');
    await payWithCard(page, '4111111111111111');
    await waitForHeading(page, 'Pagamento aprovado');
    expect(await page.locator('.pc-end').textContent()).to.include('Visa •••• 1111');
    const vaultOrigin = new URL(service.core.adapters.find((a) => a.vaultUrl)!.vaultUrl!).origin;
    expect(cardPosts('4111111111111111')).to.deep.equal([vaultOrigin]);
    expect(requests.every((r) => !r.url().includes(secret)), 'the client secret never travels in an address').to.equal(true);
    expect((await merchant.sandbox.get(`/v1/payments/${id}`)).body.status).to.equal('captured');
  });

  it('checks the card in the page first: Luhn, expiry, CVV, each error under its field and announced', async () => {
    const { id, secret } = await createCheckout();
    await open(id, secret);
    await waitForHeading(page, 'Pagamento');
    await page.getByLabel('Número do cartão').fill('4111111111111112');
    await page.getByLabel('Validade').fill('01/20');
    await page.getByLabel('Código de segurança (CVV)').fill('12');
    await page.getByRole('button', { name: /^Pagar / }).click();
    expect(await page.getByRole('alert').textContent()).to.equal('Corrija os 4 campos destacados.');
    expect(await page.getByLabel('Número do cartão').getAttribute('aria-invalid')).to.equal('true');
    expect(await page.locator('.pc-field-number .pc-error').textContent()).to.equal('Número de cartão inválido. Confira os dígitos.');
    expect(await page.locator('.pc-field-expiry .pc-error').textContent()).to.equal('Este cartão está vencido.');
    expect(await page.locator('.pc-field-cvv .pc-error').textContent()).to.equal('Código de segurança inválido.');
    expect(await page.evaluate<string>('document.activeElement.id')).to.match(/-number$/);
    expect(requests.filter((r) => r.method() === 'POST'), 'nothing sent').to.deep.equal([]);
  });

  it('a reversible decline shows the buyer\'s phrase and attempts left, then a second card is approved (a new Idempotency-Key each)', async () => {
    const { id, secret } = await createCheckout();
    await open(id, secret);
    await payWithCard(page, '4000000000009995');
    await page.locator('.pc-decline').waitFor({ timeout: 45_000 });
    const merchantView = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
    const decline = await page.locator('.pc-decline').textContent();
    expect(decline).to.include('Pagamento recusado');
    expect(decline).to.include(merchantView.decline.consumerMessage);
    expect(decline).to.include('Você tem mais 2 tentativas.');
    expect(await page.getByRole('alert').textContent()).to.include(merchantView.decline.consumerMessage);
    await payWithCard(page, '4111111111111111');
    await waitForHeading(page, 'Pagamento aprovado');
    const keys = await confirmKeys();
    expect(keys).to.have.length(2);
    expect(new Set(keys).size, 'a fresh key per attempt').to.equal(2);
  });

  it('the attempt limit ends the payment: failed, with the decline phrase and the limit said', async () => {
    const { id, secret } = await createCheckout();
    await open(id, secret);
    for (const left of ['Você tem mais 2 tentativas.', 'Você tem mais 1 tentativa.']) {
      await payWithCard(page, '4000000000009995');
      await page.locator('.pc-decline', { hasText: left }).waitFor({ timeout: 45_000 });
    }
    await payWithCard(page, '4000000000009995');
    await waitForHeading(page, 'Pagamento não aprovado');
    expect(await page.locator('.pc-end').textContent()).to.include('O limite de tentativas com cartão foi atingido.');
    const view = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
    expect(view).to.deep.include({ status: 'failed' });
    expect(view.checkout.endedBy).to.equal('attempt_limit');
  });

  it('an irreversible decline ends at once; a finished payment opened again shows its end', async () => {
    const { id, secret } = await createCheckout();
    await open(id, secret);
    await payWithCard(page, '4000000000000069');
    await waitForHeading(page, 'Pagamento não aprovado');
    await open(id, secret);
    await waitForHeading(page, 'Pagamento não aprovado');
  });

  it('a wrong client secret shows that the link is invalid', async () => {
    const { id, secret } = await createCheckout();
    await open(id, `${secret}x`);
    await waitForHeading(page, 'Este link de pagamento é inválido ou já não vale.');
  });

  describe('3DS in sandbox (a published flow with a three_ds node)', () => {
    let authenticating: Merchant;
    const node = (id: string, type: string, data: Record<string, unknown> = {}) => ({ id, type, position: { x: 0, y: 0 }, data });
    const edge = (source: string, target: string, sourcePort?: string) => ({ id: `${source}-${sourcePort ?? 'next'}`, source, target, ...(sourcePort ? { sourcePort } : {}) });

    before(async () => {
      authenticating = await service.merchant('Loja 3DS');
      const account = await authenticating.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
      const graph = {
        nodes: [node('trigger', 'trigger'), node('auth', 'three_ds', { connectorAccountId: account.body.id }), node('charge', 'acquirer', { connectorAccountId: account.body.id }), node('approve', 'approve'), node('decline', 'decline')],
        edges: [edge('trigger', 'auth'), edge('auth', 'charge', 'authenticated'), edge('auth', 'decline', 'failed'), edge('auth', 'charge', 'unavailable'), edge('charge', 'approve', 'approved'), edge('charge', 'decline', 'declined')],
      };
      const flow = await authenticating.sandbox.post('/v1/flows', { name: 'Authenticate first', graph });
      expect(flow.status, JSON.stringify(flow.body)).to.equal(201);
      expect((await authenticating.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {})).status).to.equal(200);
    });

    for (const [choice, heading, status] of [
      ['Autenticar com sucesso', 'Pagamento aprovado', 'captured'],
      ['Falhar a autenticação', 'Pagamento não aprovado', 'failed'],
    ] as const) {
      it(`the challenge screen: "${choice}" ends ${status}`, async () => {
        const created = await authenticating.sandbox.post('/v1/payments', { amount: 7_700 });
        await open(created.body.id, created.body.clientSecret);
        await payWithCard(page, '4000000000003220');
        await waitForHeading(page, 'Autenticação do cartão (3-D Secure)');
        expect((await authenticating.sandbox.get(`/v1/payments/${created.body.id}`)).body).to.deep.include({ status: 'requires_action' });
        await page.getByRole('button', { name: choice }).click();
        await waitForHeading(page, heading);
        expect((await authenticating.sandbox.get(`/v1/payments/${created.body.id}`)).body.status).to.equal(status);
        const threeDsCalls = requests.filter((r) => r.url().endsWith(`/v1/public/payments/${created.body.id}/three-ds`));
        expect(threeDsCalls).to.have.length(1);
        expect(JSON.parse(threeDsCalls[0]!.postData()!)).to.include({ outcome: status === 'captured' ? 'success' : 'failure', eci: status === 'captured' ? '05' : '07' });
      });
    }
  });

  describe('pending Pix and boleto (the public view\'s nextAction, as contract.md 5 shapes it)', () => {
    /** The page as it shows a view the service answers for a bank charge: the public view is played by the test. */
    const showView = async (views: Array<Record<string, unknown>>) => {
      const { id, secret } = await createCheckout();
      const real = (await service.client().get(`/v1/public/payments/${id}`, { 'Service-Client-Secret': secret })).body;
      let served = 0;
      await page.route(`${service.url}/v1/public/payments/${id}`, (route) =>
        route.fulfill({ status: 200, contentType: 'application/json', headers: { 'Access-Control-Allow-Origin': '*' }, body: JSON.stringify({ ...real, ...views[Math.min(served++, views.length - 1)] }) }),
      );
      await open(id, secret);
      return { id, served: () => served };
    };
    afterEach(async () => page.unrouteAll());

    it('Pix: QR code, copy-and-paste code with a copy button, time left; paid as soon as the view says so', async () => {
      const qrCode = '00020101021226880014br.gov.bcb.pix2566pix.example/qr/v2/cobv/abc5204000053039865406123.455802BR5913LOJA DA ANA6009SAO PAULO62070503***6304ABCD';
      const pending = { status: 'requires_action', methodType: 'pix', cardAttempts: null, nextAction: { type: 'pix', qrCode, qrCodeImage: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', expiresAt: new Date(Date.now() + 30 * 60_000).toISOString() } };
      const views = [pending, pending, { status: 'captured', methodType: 'pix', nextAction: null, cardAttempts: null }];
      await showView(views);
      await waitForHeading(page, 'Pague com Pix');
      expect(await page.getByRole('img', { name: 'QR code do Pix' }).getAttribute('src')).to.match(/^data:image\/png;base64,/);
      expect(await page.getByLabel('Pix copia e cola').inputValue()).to.equal(qrCode);
      expect(await page.getByRole('button', { name: 'Copiar código' }).count()).to.equal(1);
      expect(await page.locator('.pc-timer').textContent()).to.match(/^Tempo restante: (30:00|29:\d\d)$/);
      await waitForHeading(page, 'Pagamento recebido');
    });

    it('boleto: digitable line with a copy button, due date and the printable boleto', async () => {
      const line = '23793381286000782713695000063305975520000012345';
      await showView([{ status: 'requires_action', methodType: 'boleto', cardAttempts: null, nextAction: { type: 'boleto', digitableLine: line, barcode: '2'.repeat(44), dueDate: '2030-03-15', pdfUrl: 'http://127.0.0.1:1/boletos/b1.pdf' } }]);
      await waitForHeading(page, 'Pague com boleto');
      expect(await page.getByLabel('Linha digitável').inputValue()).to.equal('23793.38128 60007.827136 95000.063305 9 75520000012345');
      expect(await page.getByRole('button', { name: 'Copiar código' }).count()).to.equal(1);
      expect(await page.locator('.pc-due').textContent()).to.equal('Vencimento: 15 de março de 2030');
      expect(await page.getByRole('link', { name: 'Abrir o boleto para imprimir' }).getAttribute('href')).to.equal('http://127.0.0.1:1/boletos/b1.pdf');
    });
  });

  it('speaks English to a browser that asks for it', async () => {
    const { id, secret } = await createCheckout();
    const english = await browser.context.newPage();
    try {
      // The browser's language, as a browser set to English reports it (navigator.languages and Accept-Language).
      const devtools = await browser.context.newCDPSession(english);
      await devtools.send('Emulation.setUserAgentOverride', { userAgent: await english.evaluate<string>('navigator.userAgent'), acceptLanguage: 'en-US,en' });
      await english.goto(`${service.url}/checkout/${id}#${secret}`);
      await waitForHeading(english, 'Payment');
      expect(await english.locator('html').getAttribute('lang')).to.equal('en');
      await payWithCard(english, '4000000000009995', { number: 'Card number', expiry: 'Expiry date', cvv: 'Security code (CVV)', name: 'Name on the card', pay: /^Pay / });
      await english.locator('.pc-decline').waitFor({ timeout: 45_000 });
      const view = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
      const decline = await english.locator('.pc-decline').textContent();
      expect(decline).to.include('You have 2 attempts left.');
      expect(decline).not.to.include(view.decline.consumerMessage, 'the pt-BR phrase is not shown');
    } finally {
      await english.close();
    }
  });
});
