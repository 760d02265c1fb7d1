import { expect } from 'chai';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import type { ProductServices } from '../../../infrastructure/main/modules';
import { node, edge } from '../../support/builders/flow-graph.builder';


/**
 * clientSecret (spec: returned while the status is requires_payment_method or requires_action, null afterwards) for
 * every payment that comes to await the buyer, not only the transparent checkout: a Pix charge to pay, a merchant's
 * card payment paused at a three_ds node. The public routes serve them with it; its storage is the checkout's
 * (sealed and hashed, never in clear in the database). PostgreSQL, the sandbox over gRPC.
 */
describe('clientSecret of every payment awaiting the buyer: Pix and a three_ds pause (REST edge, sandbox over gRPC)', function () {
  this.timeout(120_000);
  let service: TestService<ProductServices>;
  const pub = (secret: string, extra: Record<string, string> = {}) => ({ 'Service-Client-Secret': secret, ...extra });
  const key = () => `k_${Math.random().toString(36).slice(2)}`;
  const storedDoc = async (id: string) =>
    (await service.core.orm.em.fork({ useContext: false }).execute<Array<{ doc: string }>>('select doc::text as doc from payments where id = ?', [id]))[0]!.doc;

  before(async () => {
    service = await startTestService({ transport: 'in-process', workers: false });
  });
  after(async () => {
    await service?.stop();
  });

  describe('Pix', () => {
    let m: Merchant;
    let payer: string;
    before(async () => {
      m = await service.merchant('Pix secret');
      expect((await m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'bank', credentials: { merchantId: 'm_pix', apiKey: 'k1' } })).status).to.equal(201);
      payer = (await m.sandbox.post('/v1/customers', { name: 'Paula Pagadora', document: '52998224725' })).body.id;
    });

    it('a Pix awaiting payment has a client secret in the merchant answers; the public view serves its charge with it', async () => {
      const pix = await m.sandbox.post('/v1/payments', { amount: 12_000, methodType: 'pix', customerId: payer });
      expect(pix.status, JSON.stringify(pix.body)).to.equal(201);
      expect(pix.body.status).to.equal('requires_action');
      const secret = pix.body.clientSecret as string;
      expect(secret).to.be.a('string').and.not.equal('');
      expect((await m.sandbox.get(`/v1/payments/${pix.body.id}`)).body.clientSecret).to.equal(secret);
      // Stored sealed and hashed, as the checkout's: never in clear.
      expect(await storedDoc(pix.body.id)).not.to.contain(secret);

      const view = await service.client().get(`/v1/public/payments/${pix.body.id}`, pub(secret));
      expect(view.status, JSON.stringify(view.body)).to.equal(200);
      expect(view.body).to.include({ id: pix.body.id, status: 'requires_action', methodType: 'pix' });
      expect(view.body.nextAction.type).to.equal('pix');
      const refused = await service.client().get(`/v1/public/payments/${pix.body.id}`, pub(`${secret}x`));
      expect(refused.status).to.equal(401);
      expect(refused.body.error.code).to.equal('invalid_client_secret');
    });

    it('once the Pix leaves requires_action (voided) the merchant answers show clientSecret null', async () => {
      const pix = await m.sandbox.post('/v1/payments', { amount: 12_100, methodType: 'pix', customerId: payer });
      expect(pix.body.clientSecret).to.be.a('string');
      const voided = await m.sandbox.post(`/v1/payments/${pix.body.id}/void`, {});
      expect(voided.body.status, JSON.stringify(voided.body)).to.equal('canceled');
      expect((await m.sandbox.get(`/v1/payments/${pix.body.id}`)).body.clientSecret).to.equal(null);
    });

    it('a card payment that never awaits the buyer gets none', async () => {
      const card = await m.sandbox.post('/v1/payments', { amount: 500, card: { token: 'tok_sandbox_approved' } });
      expect(card.body).to.include({ status: 'captured', clientSecret: null });
      expect(await storedDoc(card.body.id)).not.to.contain('"clientSecret":{');
    });
  });

  describe('a merchant card payment paused at a three_ds node', () => {
    let m: Merchant;
    before(async () => {
      m = await service.merchant('3DS secret');
      const account = await m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm_3ds', apiKey: 'k1' } });
      expect(account.status, JSON.stringify(account.body)).to.equal(201);
      const flow = await m.sandbox.post('/v1/flows', {
        name: '3DS first',
        graph: {
          nodes: [node('trigger', 'trigger'), node('auth', 'three_ds', { connectorAccountId: account.body.id }), node('charge', 'acquirer', { connectorAccountId: account.body.id }), node('approve', 'approve'), node('decline', 'decline')],
          edges: [edge('trigger', 'auth'), edge('auth', 'charge', 'authenticated'), edge('auth', 'decline', 'failed'), edge('auth', 'charge', 'unavailable'), edge('charge', 'approve', 'approved'), edge('charge', 'decline', 'declined')],
        },
      });
      expect((await m.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {})).status).to.equal(200);
    });

    it('is requires_action with a client secret; the public three-ds route takes the result with it; null once captured', async () => {
      const created = await m.sandbox.post('/v1/payments', { amount: 6_600, card: { token: 'tok_sandbox_approved', brand: 'visa' } });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body.status).to.equal('requires_action');
      expect(created.body.nextAction).to.include({ type: 'three_ds' });
      const secret = created.body.clientSecret as string;
      expect(secret).to.be.a('string').and.not.equal('');
      expect((await m.sandbox.get(`/v1/payments/${created.body.id}`)).body.clientSecret).to.equal(secret);

      const done = await service.client().post(`/v1/public/payments/${created.body.id}/three-ds`, { outcome: 'success', eci: '05', cavv: 'AAABCZIhcQAAAABZlyFxAAAAAAA=' }, pub(secret, { 'Idempotency-Key': key() }));
      expect(done.status, JSON.stringify(done.body)).to.equal(201);
      expect(done.body.status).to.equal('captured');
      expect((await m.sandbox.get(`/v1/payments/${created.body.id}`)).body.clientSecret).to.equal(null);
    });
  });
});
