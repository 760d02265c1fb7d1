import { expect } from 'chai';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import type { ProductServices } from '../../../infrastructure/main/modules';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import { brCodeCrcIsValid, boletoBarcodeIsValid, digitableLineIsValid, dueDateOfFactor } from '../../support/br-payment-checks';

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
      expect(action.pdfUrl).to.match(/^https?:\/\//);
    });

    it('a boleto due in the past is refused with the field named, and nothing is saved', async () => {
      const count = (await merchant.sandbox.get('/v1/payments?limit=100')).body.totalCount;
      const r = await merchant.sandbox.post('/v1/payments', { amount: 100, methodType: 'boleto', customerId: boletoPayer, boleto: { dueDate: '2020-01-01' } });
      expect(r.status).to.equal(422);
      expect(r.body.error).to.include({ code: 'validation_failed', param: 'body.boleto.dueDate' });
      expect((await merchant.sandbox.get('/v1/payments?limit=100')).body.totalCount).to.equal(count);
    });
  });
});
