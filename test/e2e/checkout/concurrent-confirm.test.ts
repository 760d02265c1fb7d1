import { expect } from 'chai';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import type { ProductServices } from '../../../infrastructure/main/modules';

/**
 * Two confirmations of one checkout at once (two Idempotency-Keys, the same payment), on PostgreSQL. Each reads the
 * payment awaiting a card; tx1 writes it only if it is still as read (application/payments/confirm-checkout.ts,
 * payment_unchanged), so one attempt is counted and one acquirer call made, and the other request answers 409.
 */
describe('concurrent confirmations of one checkout (REST edge, PostgreSQL)', function () {
  this.timeout(120_000);
  let service: TestService<ProductServices>;
  let merchant: Merchant;
  let accountId: string;
  let sequence = 0;

  const card = { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111', expMonth: 12, expYear: 2030 };
  const confirm = (id: string, secret: string) =>
    service.client().post(`/v1/public/payments/${id}/confirm`, { card }, { 'Service-Client-Secret': secret, 'Idempotency-Key': `cc_${++sequence}` });

  before(async () => {
    service = await startTestService({ transport: 'in-process' });
    merchant = await service.merchant('Loja Concorrente');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
    expect(account.status).to.equal(201);
    accountId = account.body.id;
  });
  after(async () => {
    await service?.stop();
  });

  it('one is confirmed (one attempt counted, one acquirer call), the other refused 409 invalid_state', async () => {
    // Several checkouts, so the two requests meet in tx1 (not only at the first read) in some of them.
    const rounds = 5;
    for (let round = 0; round < rounds; round += 1) {
      const created = await merchant.sandbox.post('/v1/payments', { amount: 1000 + round, currency: 'BRL' });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const { id, clientSecret } = created.body as { id: string; clientSecret: string };
      const answers = await Promise.all([confirm(id, clientSecret), confirm(id, clientSecret)]);
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses, JSON.stringify(answers.map((a) => a.body))).to.deep.equal([201, 409]);
      expect(answers.find((a) => a.status === 409)!.body.error.code).to.equal('invalid_state');
      const view = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
      expect(view.status).to.equal('captured');
      expect(view.attempts, JSON.stringify(view.attempts)).to.have.length(1);
      expect(view.checkout).to.include({ attemptsUsed: 1 });
    }
    // One acquirer call per checkout, whichever request made it.
    const health = (await merchant.sandbox.get(`/v1/connector-accounts/${accountId}`)).body.health.recentCalls;
    expect(health).to.include({ total: rounds, approved: rounds });
  });
});
