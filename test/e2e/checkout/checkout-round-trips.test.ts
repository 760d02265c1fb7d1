import { expect } from 'chai';
import { recordRoundTrips } from '../../support/round-trip-recorder';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import type { ProductServices } from '../../../infrastructure/main/modules';

/**
 * What one request costs the database (docs/benchmarks.md, the checkout scenario): the round trips of a public
 * confirm with a vault token and of a direct card payment, counted with the driver's recorder. Caches are warm (a
 * first checkout and payment run before the counted ones), as in the bench's measured window.
 */
describe('round trips per checkout confirmation and per card payment (REST edge, PostgreSQL)', function () {
  this.timeout(120_000);
  let service: TestService<ProductServices>;
  let merchant: Merchant;
  let recorder: ReturnType<typeof recordRoundTrips>;
  let sequence = 0;

  const card = { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111', expMonth: 12, expYear: 2030 };
  const checkout = async () => {
    const created = await merchant.sandbox.post('/v1/payments', { amount: 1990, currency: 'BRL' });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return { id: created.body.id as string, secret: created.body.clientSecret as string };
  };
  const confirm = (id: string, secret: string) =>
    service.client().post(`/v1/public/payments/${id}/confirm`, { card }, { 'Service-Client-Secret': secret, 'Idempotency-Key': `rt_${++sequence}` });
  /**
   * The request's own round trips: the outbox relay, the webhook dispatcher and the connector call history's batches
   * (infrastructure/persistence/call-history-writer.ts, which also carry earlier requests' calls) run meanwhile.
   * A statement's first use in the process is probed once (`prepare uN as ...; deallocate uN`, under a savepoint inside a transaction,
   * infrastructure/persistence/prepared-statements.ts); a rarely taken branch, such as the health trim one call in
   * TRIM_EVERY makes, can meet its probe in the counted request, which is warm-up, not that request's cost.
   */
  const background = /^(with claimed as|begin; set local synchronous_commit = off; update events|with recursive queued_endpoints|(savepoint probe; )?prepare u\d+ as .*; deallocate u\d+(; release savepoint probe)?$)/;
  /** A round trip of the call history's batch alone (sent with a request's own units, it is that request's round trip). */
  const callHistoryOnly = (s: string) =>
    s.split('; ').filter((part) => !/^(begin|commit|set local lock_timeout = '\d+ms')$/.test(part)).every((part) => /^(insert into|delete from) connector_account_health /.test(part));
  const counted = async <T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> => {
    recorder.statements.length = 0;
    const result = await work();
    return { result, statements: recorder.statements.map((s) => s.replace(/\s+/g, ' ').trim()).filter((s) => !background.test(s) && !callHistoryOnly(s)) };
  };
  const paymentReads = (statements: string[]) => statements.flatMap((s) => s.split('; ')).filter((s) => /^select (id, )?doc from payments/.test(s));

  before(async () => {
    service = await startTestService({ transport: 'in-process' });
    merchant = await service.merchant('Loja Round Trips');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
    expect(account.status).to.equal(201);
    recorder = recordRoundTrips(new URL(service.config.databaseUrl!).pathname.slice(1));
    // Warm: API key, accounts, flows and the merchant's name cached as in a running service.
    const first = await checkout();
    expect((await confirm(first.id, first.secret)).status).to.equal(201);
    expect((await merchant.sandbox.post('/v1/payments', { amount: 1990, currency: 'BRL', card })).status).to.equal(201);
  });
  after(async () => {
    recorder?.stop();
    await service?.stop();
  });

  it('a public confirm reads the payment once, batched, writes tx1 guarded with no locked read, and names the merchant from memory', async () => {
    const { id, secret } = await checkout();
    const { result, statements } = await counted(() => confirm(id, secret));
    expect(result.status, JSON.stringify(result.body)).to.equal(201);
    expect(result.body).to.deep.include({ status: 'captured', merchant: { name: 'Loja Round Trips' } });
    // The one payment read is the secret check's, batched with the others asked in the same turn; tx1 reads nothing
    // (no `for update`): its update is guarded on the payment as that read saw it (payment_unchanged), so it is only
    // queued writes, group-committed with the other units of its turn.
    expect(paymentReads(statements), statements.join('\n')).to.have.length(1);
    expect(paymentReads(statements)[0]).to.match(/^select id, doc from payments where id = any\(/);
    expect(statements.filter((s) => /for update/.test(s)), statements.join('\n')).to.deep.equal([]);
    expect(statements.filter((s) => s.includes('payment_unchanged(')), statements.join('\n')).to.have.length(1);
    expect(statements.filter((s) => s.includes('from organizations')), statements.join('\n')).to.deep.equal([]);
    // The arrival limit, the secret check, the key's begin, the card's brand retry history, tx1 (its guarded writes in
    // one round trip: one fewer than the locked read and then the writes it replaced), tx2, the key's answer: 7. The
    // history is the one round trip the brand retry budget adds: it must be known before tx1, whose first step asks it,
    // and it is read as the direct payment reads it, batched with every history asked in the same turn (read-batch.ts),
    // so under load it costs a fraction of a round trip; alone it costs one.
    expect(statements.filter((s) => s.includes('card_retry_counts')), statements.join('\n')).to.have.length(1);
    expect(statements, statements.join('\n')).to.have.length.at.most(7);
  });

  it('a public view reads the payment once and names the merchant from memory', async () => {
    const { id, secret } = await checkout();
    const { result, statements } = await counted(() => service.client().get(`/v1/public/payments/${id}`, { 'Service-Client-Secret': secret }));
    expect(result.status, JSON.stringify(result.body)).to.equal(200);
    expect(result.body).to.deep.include({ status: 'requires_payment_method', merchant: { name: 'Loja Round Trips' } });
    expect(statements, statements.join('\n')).to.have.length(1);
    expect(statements[0]).to.match(/^select id, doc from payments where/);
  });

  it('a direct card payment approved by the sandbox', async () => {
    const { result, statements } = await counted(() => merchant.sandbox.post('/v1/payments', { amount: 1990, currency: 'BRL', card }));
    expect(result.status, JSON.stringify(result.body)).to.equal(201);
    expect(result.body.status).to.equal('captured');
    // The card's brand retry counts, tx1, tx2.
    expect(statements, statements.join('\n')).to.have.length.at.most(3);
  });

  it('a checkout creation is one round trip', async () => {
    const { statements } = await counted(() => checkout());
    expect(statements, statements.join('\n')).to.have.length(1);
  });
});
