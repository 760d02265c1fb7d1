import { expect } from 'chai';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import type { ProductServices } from '../../../infrastructure/main/modules';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import { brCodeCrcIsValid, boletoBarcodeIsValid, decodeItfSvg, digitableLineIsValid, dueDateOfFactor } from '../../support/br-payment-checks';
import { eventually } from '../../support/eventually';

/**
 * Pix and boleto through the REST edge, on PostgreSQL with the sandbox acquirer over gRPC: issued as requires_action
 * with the charge as nextAction, then learnt of from the bank (a checked notice, polling, a simulation), expired on
 * the service's clock, voided at the bank, refunded (Pix) or refused (boleto).
 */
describe('Pix and boleto payments (PostgreSQL, sandbox acquirer over gRPC)', function () {
  this.timeout(60_000);
  const clock = new ManualClock(new Date());
  let service: TestService<ProductServices>;
  let merchant: Merchant;
  let accountId: string;
  let pixPayer: string;
  let boletoPayer: string;

  const eventTypes = async (paymentId: string) =>
    (await service.core.orm.em.fork({ useContext: false }).execute<Array<{ type: string }>>('select type from events where object_id = ? order by sequence nulls last, id', [paymentId])).map((r) => r.type);

  const scope = () => ({ organizationId: merchant.organizationId, environment: 'sandbox' as const });
  const paymentOf = async (id: string) => (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
  /** The bank itself, without telling the service: the payer pays (or the charge is looked at) at the sandbox. */
  const bank = async () => {
    const opened = await service.services.connectorAccounts.open(scope(), accountId);
    const simulator = service.services.connectorAccounts.sandboxSimulator('sandbox');
    const gateway = service.services.connectorAccounts.acquirerGateway('sandbox');
    return {
      pay: (acquirerPaymentId: string) => simulator.simulateCharge({ credentials: opened!.credentials, acquirerPaymentId, outcome: 'paid' }),
      status: async (acquirerPaymentId: string) => (await gateway.queryCharge({ credentials: opened!.credentials, acquirerPaymentId })).status,
    };
  };
  /** Plays the poller once the clock has passed the due polls: claims them and polls each. */
  const pollDue = async (on: TestService<ProductServices> = service) => {
    const claimed = await on.services.bankCharges.claimDue(50);
    return Promise.all(claimed.map(async (wait) => [wait.paymentId, await on.services.bankCharges.poll(wait)] as const));
  };
  const webhookUrl = async () => new URL((await merchant.sandbox.get(`/v1/connector-accounts/${accountId}`)).body.webhookUrl).pathname;

  const createPix = async (body: Record<string, unknown> = {}) => {
    const r = await merchant.sandbox.post('/v1/payments', { amount: 12_345, methodType: 'pix', customerId: pixPayer, ...body });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body;
  };

  before(async () => {
    // Background workers off: the test plays the poller, so it decides when a charge is looked at.
    service = await startTestService({ transport: 'in-process', clock, workers: false });
    merchant = await service.merchant('Pix and boleto');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'bank', credentials: { merchantId: 'm_bank', apiKey: 'k1' } });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
    accountId = account.body.id;
    pixPayer = (await merchant.sandbox.post('/v1/customers', { name: 'Paula Pagadora', document: '52998224725' })).body.id;
    boletoPayer = (
      await merchant.sandbox.post('/v1/customers', {
        name: 'ACME Ltda',
        document: '11.222.333/0001-81',
        address: { postalCode: '01310-100', line1: 'Av. Paulista', streetNumber: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' },
      })
    ).body.id;
  });
  after(async () => {
    await service?.stop();
  });

  describe('creation', () => {
    it('a Pix payment is requires_action with a BR Code whose CRC16 is valid, its QR image and expiry (default 3600 s)', async () => {
      const before = clock.now().getTime();
      const payment = await createPix();
      expect(payment).to.include({ status: 'requires_action', methodType: 'pix', connectorAccountId: accountId, connector: 'sandbox' });
      const action = payment.nextAction;
      expect(action.type).to.equal('pix');
      expect(brCodeCrcIsValid(action.qrCode), action.qrCode).to.equal(true);
      expect(action.qrCode).to.contain('br.gov.bcb.pix').and.to.contain('5406123.45');
      expect(action.qrCodeImage).to.match(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
      const lifetime = Date.parse(action.expiresAt) - before;
      expect(lifetime).to.be.within(3_590_000, 3_700_000);
      expect(await eventTypes(payment.id)).to.deep.equal([]);
    });

    it('pix.expiresInSeconds sets the expiry; out of 60-604800 it is refused and nothing is saved', async () => {
      const payment = await createPix({ pix: { expiresInSeconds: 600 } });
      expect(Date.parse(payment.nextAction.expiresAt) - Date.parse(payment.createdAt)).to.be.within(590_000, 700_000);
      const count = (await merchant.sandbox.get('/v1/payments?limit=100')).body.totalCount;
      for (const expiresInSeconds of [59, 604_801]) {
        const refused = await merchant.sandbox.post('/v1/payments', { amount: 100, methodType: 'pix', customerId: pixPayer, pix: { expiresInSeconds } });
        expect(refused.status).to.equal(422);
        expect(refused.body.error.param).to.equal('body.pix.expiresInSeconds');
      }
      expect((await merchant.sandbox.get('/v1/payments?limit=100')).body.totalCount).to.equal(count);
    });

    it('a boleto is requires_action with a 44-digit barcode and a 47-digit line whose check digits and due-date factor are right', async () => {
      const dueDate = new Date(clock.now().getTime() + 5 * 86_400_000).toISOString().slice(0, 10);
      const r = await merchant.sandbox.post('/v1/payments', {
        amount: 98_765,
        methodType: 'boleto',
        customerId: boletoPayer,
        boleto: { dueDate, daysAfterDue: 2, fineBps: 200, interestMonthlyBps: 100, instructions: 'Não receber após 2 dias do vencimento' },
      });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      const action = r.body.nextAction;
      expect(r.body.status).to.equal('requires_action');
      expect(action).to.include({ type: 'boleto', dueDate, daysAfterDue: 2, fineBps: 200, interestMonthlyBps: 100, instructions: 'Não receber após 2 dias do vencimento' });
      expect(action.barcode).to.match(/^\d{44}$/);
      expect(action.digitableLine).to.match(/^\d{47}$/);
      expect(boletoBarcodeIsValid(action.barcode), action.barcode).to.equal(true);
      expect(digitableLineIsValid(action.digitableLine, action.barcode), action.digitableLine).to.equal(true);
      expect(action.barcode.slice(9, 19)).to.equal('0000098765');
      expect(dueDateOfFactor(Number(action.barcode.slice(5, 9)), clock.now())).to.equal(dueDate);
      // The printable boleto: a print-ready page with the line, due date, payer and the 44 digits drawn as ITF.
      const page = await fetch(action.pdfUrl);
      expect(page.status).to.equal(200);
      expect(page.headers.get('content-type')).to.match(/^text\/html/);
      const html = await page.text();
      expect(html).to.contain(`${action.digitableLine.slice(0, 5)}.${action.digitableLine.slice(5, 10)}`).and.contain('ACME Ltda').and.contain('R$');
      expect(html).to.contain(dueDate.split('-').reverse().join('/'));
      expect(decodeItfSvg(html.slice(html.indexOf('<svg'), html.indexOf('</svg>')))).to.equal(action.barcode);
    });

    it('a boleto due in the past is refused with the field named, and nothing is saved', async () => {
      const count = (await merchant.sandbox.get('/v1/payments?limit=100')).body.totalCount;
      const r = await merchant.sandbox.post('/v1/payments', { amount: 100, methodType: 'boleto', customerId: boletoPayer, boleto: { dueDate: '2020-01-01' } });
      expect(r.status).to.equal(422);
      expect(r.body.error).to.include({ code: 'validation_failed', param: 'body.boleto.dueDate' });
      expect((await merchant.sandbox.get('/v1/payments?limit=100')).body.totalCount).to.equal(count);
    });
  });

  describe('learning of payments', () => {
    it('a notice with a wrong token or for another account is 404 and changes nothing', async () => {
      const payment = await createPix();
      const path = await webhookUrl();
      const wrongToken = path.replace(/[^/]+$/, 'A'.repeat(32));
      const wrongAccount = path.replace(accountId, 'ca_doesnotexist');
      for (const target of [wrongToken, wrongAccount]) {
        const r = await service.client().post(target, { acquirerPaymentId: payment.acquirer.acquirerPaymentId });
        expect(r.status).to.equal(404);
        expect(r.body.error.code).to.equal('not_found');
      }
      expect((await paymentOf(payment.id)).status).to.equal('requires_action');
    });

    it('a forged notice (the bank was not paid) is answered 200 and pays nothing: the bank is asked', async () => {
      const payment = await createPix();
      const r = await service.client().post(await webhookUrl(), { charges: [{ acquirerPaymentId: payment.acquirer.acquirerPaymentId, status: 'paid' }] });
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal({ received: true, charges: 1 });
      // The check runs after the answer: give it time to (not) act, then look.
      await eventually(async () => (await bank()).status(payment.acquirer.acquirerPaymentId).then((s) => s === 'awaiting_payment'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await paymentOf(payment.id)).status).to.equal('requires_action');
      expect(await eventTypes(payment.id)).to.deep.equal([]);
    });

    it('a true notice captures the payment through the run\'s approved exit, with payment.captured', async () => {
      const payment = await createPix();
      await (await bank()).pay(payment.acquirer.acquirerPaymentId);
      const r = await service.client().post(await webhookUrl(), { acquirerPaymentId: payment.acquirer.acquirerPaymentId });
      expect(r.status).to.equal(200);
      const captured = await eventually(async () => {
        const p = await paymentOf(payment.id);
        return p.status === 'captured' && p;
      });
      expect(captured).to.include({ capturedAmount: 12_345, nextAction: null });
      expect(captured.flowExecution.status).to.equal('ended');
      expect(await eventTypes(payment.id)).to.deep.equal(['payment.captured']);
    });

    it('a lost notice is caught by polling: nothing is due before the first poll, the poll captures it once', async () => {
      const payment = await createPix();
      await (await bank()).pay(payment.acquirer.acquirerPaymentId);
      expect((await pollDue()).map(([id]) => id)).to.not.include(payment.id);
      clock.advance(61_000);
      const polled = await pollDue();
      expect(polled).to.deep.include([payment.id, 'paid']);
      expect((await paymentOf(payment.id)).status).to.equal('captured');
      clock.advance(3_600_000);
      expect((await pollDue()).map(([id]) => id)).to.not.include(payment.id);
      expect(await eventTypes(payment.id)).to.deep.equal(['payment.captured']);
    });

    it('an unpaid charge is polled with back-off, then expires on the service clock: removed at the bank, canceled', async () => {
      const payment = await createPix({ pix: { expiresInSeconds: 600 } });
      clock.advance(61_000);
      expect(await pollDue()).to.deep.include([payment.id, 'awaiting_payment']);
      clock.advance(61_000);
      expect((await pollDue()).map(([id]) => id)).to.include(payment.id);
      clock.advance(10 * 60_000);
      expect(await pollDue()).to.deep.include([payment.id, 'expired']);
      const ended = await paymentOf(payment.id);
      expect(ended).to.include({ status: 'canceled', nextAction: null });
      expect(await (await bank()).status(payment.acquirer.acquirerPaymentId)).to.equal('canceled');
      expect(await eventTypes(payment.id)).to.deep.equal(['payment.canceled']);
    });

    it('after a worker restart, another process on the same database and bank finds the open charge and captures it', async () => {
      const payment = await createPix();
      await (await bank()).pay(payment.acquirer.acquirerPaymentId);
      const other = await startTestService({ transport: 'in-process', clock, workers: false, joining: service, adapters: service.core.adapters });
      try {
        clock.advance(31 * 60_000);
        expect(await pollDue(other)).to.deep.include([payment.id, 'paid']);
      } finally {
        await other.stop();
      }
      expect((await paymentOf(payment.id)).status).to.equal('captured');
    });
  });

  describe('operations', () => {
    it('simulate paid captures, expired cancels; 409 once not awaiting payment; 422 for a card payment', async () => {
      const paid = await createPix();
      const r = await merchant.sandbox.post(`/v1/payments/${paid.id}/simulate`, { outcome: 'paid' });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body.status).to.equal('captured');
      const again = await merchant.sandbox.post(`/v1/payments/${paid.id}/simulate`, { outcome: 'expired' });
      expect(again.status).to.equal(409);
      expect((await paymentOf(paid.id)).status).to.equal('captured');
      const lapsed = await createPix();
      const expired = await merchant.sandbox.post(`/v1/payments/${lapsed.id}/simulate`, { outcome: 'expired' });
      expect(expired.body.status).to.equal('canceled');
      expect(await eventTypes(lapsed.id)).to.deep.equal(['payment.canceled']);
      const card = await merchant.sandbox.post('/v1/payments', { amount: 500, card: { token: 'tok_sandbox_approved' } });
      const refused = await merchant.sandbox.post(`/v1/payments/${card.body.id}/simulate`, { outcome: 'paid' });
      expect(refused.status).to.equal(422);
      expect(refused.body.error.code).to.equal('unsupported_payment_method');
      expect((await merchant.sandbox.post(`/v1/payments/${lapsed.id}/simulate`, { outcome: 'later' })).status).to.equal(422);
    });

    it('void removes an unpaid charge at the bank first, then cancels (payment.canceled)', async () => {
      const payment = await createPix();
      const r = await merchant.sandbox.post(`/v1/payments/${payment.id}/void`, { reason: 'order canceled' });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      expect(r.body.status).to.equal('canceled');
      expect(await (await bank()).status(payment.acquirer.acquirerPaymentId)).to.equal('canceled');
      expect(await eventTypes(payment.id)).to.deep.equal(['payment.canceled']);
      clock.advance(2 * 3_600_000);
      expect((await pollDue()).map(([id]) => id)).to.not.include(payment.id);
    });

    it('void of a charge the payer has just paid is 409 and the payment becomes captured', async () => {
      const payment = await createPix();
      await (await bank()).pay(payment.acquirer.acquirerPaymentId);
      const r = await merchant.sandbox.post(`/v1/payments/${payment.id}/void`, {});
      expect(r.status).to.equal(409);
      expect(r.body.error.message).to.match(/just paid/);
      expect((await paymentOf(payment.id)).status).to.equal('captured');
      expect(await eventTypes(payment.id)).to.deep.equal(['payment.captured']);
    });

    it('a notice arriving during a void: one outcome only, captured once, the void refused', async () => {
      const payment = await createPix();
      await (await bank()).pay(payment.acquirer.acquirerPaymentId);
      const [voided, notice] = await Promise.all([
        merchant.sandbox.post(`/v1/payments/${payment.id}/void`, {}),
        service.client().post(await webhookUrl(), { acquirerPaymentId: payment.acquirer.acquirerPaymentId }),
      ]);
      expect(notice.status).to.equal(200);
      expect(voided.status).to.equal(409);
      await eventually(async () => (await paymentOf(payment.id)).status === 'captured');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await eventTypes(payment.id)).to.deep.equal(['payment.captured']);
    });

    it('a Pix is refunded partially then fully through the provider; a boleto refund is 409 with guidance', async () => {
      const payment = await createPix();
      await merchant.sandbox.post(`/v1/payments/${payment.id}/simulate`, { outcome: 'paid' });
      const partial = await merchant.sandbox.post(`/v1/payments/${payment.id}/refund`, { amount: 345 });
      expect(partial.status, JSON.stringify(partial.body)).to.equal(201);
      expect(partial.body).to.include({ refundedAmount: 345, refundStatus: 'partial' });
      const rest = await merchant.sandbox.post(`/v1/payments/${payment.id}/refund`, {});
      expect(rest.body).to.include({ refundedAmount: 12_345, refundStatus: 'full' });
      expect(await eventTypes(payment.id)).to.deep.equal(['payment.captured', 'payment.partially_refunded', 'payment.refunded']);

      const boleto = await merchant.sandbox.post('/v1/payments', { amount: 5_000, methodType: 'boleto', customerId: boletoPayer });
      await merchant.sandbox.post(`/v1/payments/${boleto.body.id}/simulate`, { outcome: 'paid' });
      const refused = await merchant.sandbox.post(`/v1/payments/${boleto.body.id}/refund`, {});
      expect(refused.status).to.equal(409);
      expect(refused.body.error.code).to.equal('boleto_refund_not_supported');
      expect(refused.body.error.message).to.match(/Pix or bank transfer/);
    });
  });
});
