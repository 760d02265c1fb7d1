import { expect } from 'chai';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import type { ProductServices } from '../../../infrastructure/main/modules';

/**
 * The card brand retry budgets hold the transparent checkout as they hold a direct payment (issues 24/26, docs/checkout.md
 * "Brand retry budgets"): a Mastercard card declined through checkout confirms, checkout after checkout, is refused at
 * the 8th attempt of the transaction in 24 hours without being sent, ending the checkout as the direct payment ends.
 * REST edge, PostgreSQL, the sandbox acquirer over gRPC.
 */
describe('brand retry budgets in the transparent checkout (REST edge, sandbox acquirer)', function () {
  this.timeout(120_000);
  let service: TestService<ProductServices>;
  let merchant: Merchant;
  let sequence = 0;

  const AMOUNT = 4_321;
  // Insufficient funds (51, reversible): the checkout gives the buyer another try after each decline.
  const card = { token: 'tok_sandbox_insufficient_funds', brand: 'mastercard', bin: '555555', last4: '4444', expMonth: 12, expYear: 2030 };
  const fingerprint = '555555:4444:12/2030';
  const key = () => `budget_${++sequence}`;

  const checkout = async (): Promise<{ id: string; secret: string }> => {
    const created = await merchant.sandbox.post('/v1/payments', { amount: AMOUNT });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return { id: created.body.id, secret: created.body.clientSecret };
  };
  const confirmPublic = (id: string, secret: string) => service.client().post(`/v1/public/payments/${id}/confirm`, { card }, { 'Service-Client-Secret': secret, 'Idempotency-Key': key() });
  const confirmServer = (id: string) => merchant.sandbox.post(`/v1/payments/${id}/confirm`, { card }, { 'Idempotency-Key': key() });
  const view = async (id: string) => (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
  const eventTypes = async (id: string) =>
    (await service.core.orm.em.fork({ useContext: false }).execute<Array<{ type: string }>>('select type from events where object_id = ? order by sequence nulls last, id', [id])).map((r) => r.type);
  /** What the shared count holds for the card at this merchant: every attempt sent, by kind. */
  const counted = async () => {
    const rows = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ kind: string; n: string | number }>>(
      'select kind, sum(count) as n from card_retry_counts where organization_id = ? and card_fingerprint = ? group by kind',
      [merchant.organizationId, fingerprint],
    );
    return Object.fromEntries(rows.map((r) => [r.kind, Number(r.n)]));
  };

  before(async () => {
    service = await startTestService({ transport: 'in-process' });
    merchant = await service.merchant('Loja Retentativas');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
  });
  after(async () => {
    await service?.stop();
  });

  it('counts each declined confirm, then refuses the 8th Mastercard attempt unsent: the checkout fails as a direct payment over budget does', async () => {
    // Two checkouts spend their three attempts on the card (browser, then server confirms): six declines counted.
    for (const confirm of [(c: { id: string; secret: string }) => confirmPublic(c.id, c.secret), (c: { id: string }) => confirmServer(c.id)]) {
      const spent = await checkout();
      for (let attempt = 1; attempt <= 3; attempt++) {
        const r = await confirm(spent);
        expect(r.status, JSON.stringify(r.body)).to.equal(201);
        expect(r.body.status).to.equal(attempt < 3 ? 'requires_payment_method' : 'failed');
      }
      expect((await view(spent.id)).checkout).to.include({ attemptsUsed: 3, endedBy: 'attempt_limit' });
    }
    expect(await counted()).to.deep.equal({ reversible_decline: 6 });

    // The third checkout: its first card is the 7th attempt of the transaction, still within the budget, and declined.
    const { id, secret } = await checkout();
    const seventh = await confirmPublic(id, secret);
    expect(seventh.status, JSON.stringify(seventh.body)).to.equal(201);
    expect(seventh.body).to.deep.include({ status: 'requires_payment_method', cardAttempts: { used: 1, remaining: 2, max: 3 } });
    expect(await counted()).to.deep.equal({ reversible_decline: 7 });

    // The 8th would be charged by Mastercard: it is not sent, and the checkout ends failed.
    const eighth = await confirmPublic(id, secret);
    expect(eighth.status, JSON.stringify(eighth.body)).to.equal(201);
    expect(eighth.body).to.deep.include({ status: 'failed', decline: null, cardAttempts: { used: 2, remaining: 1, max: 3 }, checkout: { endedBy: 'not_issuer_decline' } });
    const refused = await view(id);
    expect(refused.attempts, 'no acquirer call for the refused attempt').to.have.length(1);
    expect(refused.routing.stopReason).to.equal('brand_retry_limit');
    expect(refused.error).to.include({ stage: 'routing', connectorAccount: null });
    expect(refused.error.message).to.match(/Mastercard charges from the 8th attempt/);
    expect(refused.checkout).to.deep.equal({ attemptsUsed: 2, attemptsMax: 3, attemptsRemaining: 1, endedBy: 'not_issuer_decline' });
    expect(await eventTypes(id)).to.deep.equal(['payment.attempt_declined', 'payment.failed']);
    expect(await counted(), 'an attempt not sent is not counted').to.deep.equal({ reversible_decline: 7 });

    // A direct payment of the card over the same budget ends the same way: same error, same stop reason, same event.
    const direct = await merchant.sandbox.post('/v1/payments', { amount: AMOUNT, card });
    expect(direct.status, JSON.stringify(direct.body)).to.equal(201);
    const directView = await view(direct.body.id);
    expect(directView).to.deep.include({ status: 'failed', attempts: [], decline: null });
    expect(directView.routing.stopReason).to.equal(refused.routing.stopReason);
    expect(directView.error).to.deep.equal(refused.error);
    expect(await eventTypes(direct.body.id)).to.deep.equal(['payment.failed']);

    // The server confirm is held to the same budget.
    const fourth = await checkout();
    const server = await confirmServer(fourth.id);
    expect(server.status, JSON.stringify(server.body)).to.equal(201);
    expect(server.body).to.deep.include({ status: 'failed', attempts: [], decline: null });
    expect(server.body.checkout).to.include({ attemptsUsed: 1, endedBy: 'not_issuer_decline' });
    expect((await view(fourth.id)).routing.stopReason).to.equal('brand_retry_limit');
    expect(await counted()).to.deep.equal({ reversible_decline: 7 });
  });

  it('another amount is another Mastercard transaction: the same card is still sent', async () => {
    const created = await merchant.sandbox.post('/v1/payments', { amount: AMOUNT + 1 });
    const r = await confirmServer(created.body.id);
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body.status).to.equal('requires_payment_method');
    expect(r.body.attempts).to.have.length(1);
  });
});
