import { expect } from 'chai';
import pg from 'pg';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { testServers } from '../../support/test-infrastructure';
import { DatabaseProxy } from '../../support/database-proxy';
import { eventually } from '../../support/eventually';
import { IDENTITY_MODULE } from '../../../infrastructure/main/identity.module';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { paymentsModule } from '../../../infrastructure/main/payments.module';
import { moduleList } from '../../../infrastructure/main/module';
import { NO_FLOWS_MODULE } from '../../support/no-flows-module';

const card = { token: 'tok_sandbox_approved', brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030, holderName: 'ANA SILVA' };
/** A statement's text as a log line might quote it (MikroORM puts the SQL in its errors' messages). */
const SQL_TEXT = /\b(select|insert into|update|delete from)\b[^"]*\b(from|values|set|where)\b/i;

function expectRetryAfterOneToFive(value: string | null): void {
  expect(Number(value), `Retry-After ${value}`).to.be.within(1, 5);
}

/**
 * The database fails under the service, through a TCP proxy in front of PostgreSQL: a connection reset in the middle
 * of a payment, and the database down. A failure is a 503 the client may retry (never 499, never the stored answer of
 * an Idempotency-Key), the retry charges nothing again, and the logs say why with codes, never with statements.
 */
describe('database outages through the REST edge', function () {
  this.timeout(60_000);
  let proxy: DatabaseProxy;
  let service: TestService;
  let direct: pg.Client;
  let merchant: Merchant;
  const logLines: string[] = [];

  before(async () => {
    proxy = await DatabaseProxy.start((await testServers()).databaseUrl);
    let databaseUrl = '';
    service = await startTestServiceWith(moduleList().with(IDENTITY_MODULE).with(NO_FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule({ recoveryGraceMs: 1_500, recoveryScanIntervalMs: 200, expiryScanIntervalMs: 3_600_000 })), {
      transport: 'in-process',
      env: { LOG_LEVEL: 'info' },
      // Statements travel as text (no server-side prepared statements), so the proxy can recognise one.
      config: { databasePreparedStatements: false },
      databaseAddress: (url) => {
        databaseUrl = url;
        return proxy.urlFor(url);
      },
      logDestination: { write: (line: string) => void logLines.push(line) },
    });
    // The test's own reads go around the proxy.
    direct = new pg.Client({ connectionString: databaseUrl });
    await direct.connect();
    merchant = await service.merchant('Outages');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'primary', credentials: { merchantId: 'm_outage', apiKey: 'sk_test' } });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
  });

  after(async () => {
    await direct?.end();
    await service?.stop();
    await proxy?.stop();
  });

  const paymentsOfMerchant = async () =>
    (await direct.query<{ id: string }>('select id from payments where organization_id = $1', [merchant.organizationId])).rows.map((row) => row.id);

  it('a connection reset after the acquirer approved (tx2 lost) is a 503, not a 499; the key is not kept, and its retry answers the one payment, which recovery finishes', async () => {
    const key = `reset-${Date.now()}`;
    // tx2 of the payment, the unit that records the acquirer's answer, is the one statement naming routing_lease_held.
    proxy.resetOnStatement('routing_lease_held');
    const first = await merchant.sandbox.post('/v1/payments', { amount: 1_234, card }, { 'Idempotency-Key': key });
    expect(first.status, JSON.stringify(first.body)).to.equal(503);
    expect(first.body.error).to.include({ code: 'service_unavailable' });
    expectRetryAfterOneToFive(first.headers.get('retry-after'));

    // Nothing was stored for the key: no failed answer to replay for 24 hours.
    const keys = await direct.query('select state, response_status from idempotency_keys where organization_id = $1 and key = $2', [merchant.organizationId, key]);
    expect(keys.rows).to.deep.equal([]);
    const created = await paymentsOfMerchant();
    expect(created, 'tx1 committed before the reset').to.have.length(1);

    const retry = await merchant.sandbox.post('/v1/payments', { amount: 1_234, card }, { 'Idempotency-Key': key });
    expect(retry.status, JSON.stringify(retry.body)).to.equal(201);
    expect(retry.headers.get('idempotent-replayed')).to.equal(null);
    expect(retry.body.id, 'the payment the first request created').to.equal(created[0]);
    expect(await paymentsOfMerchant()).to.deep.equal(created);

    // Recovery re-sends the saved attempt (same attempt id: the acquirer answers its first outcome, no second charge).
    const done = await eventually(async () => {
      const view = await merchant.sandbox.get(`/v1/payments/${created[0]}`);
      return view.body.status === 'captured' ? view.body : null;
    }, 20_000, 100);
    expect(done.attempts, 'one authorization').to.have.length(1);
    expect(await paymentsOfMerchant()).to.deep.equal(created);
  });

  it('with the database down, requests are 503 with Retry-After, and no log line holds a statement', async () => {
    logLines.length = 0;
    await proxy.refuse();
    try {
      const payment = await merchant.sandbox.post('/v1/payments', { amount: 2_000, card }, { 'Idempotency-Key': `down-${Date.now()}` });
      expect(payment.status, JSON.stringify(payment.body)).to.equal(503);
      expect(payment.body.error).to.include({ code: 'service_unavailable' });
      expect(payment.body.error.requestId).to.be.a('string');
      expectRetryAfterOneToFive(payment.headers.get('retry-after'));
      const list = await merchant.sandbox.get('/v1/payments');
      expect(list.status, JSON.stringify(list.body)).to.equal(503);
      expectRetryAfterOneToFive(list.headers.get('retry-after'));
    } finally {
      await proxy.accept();
    }
    const lines = logLines.map((line) => JSON.parse(line) as { level: string; msg: string; reason?: string });
    expect(lines.filter((line) => line.msg === 'dependency unavailable').map((line) => [line.level, line.reason])).to.deep.include(['warn', 'ECONNREFUSED']);
    expect(lines.filter((line) => line.msg === 'unexpected error'), 'an outage is not an unexpected error').to.deep.equal([]);
    // Every line of the service, its workers' included (they meet the outage too).
    for (const line of logLines) expect(line).not.to.match(SQL_TEXT);
    // Served again once the database is back.
    expect((await merchant.sandbox.get('/v1/payments')).status).to.equal(200);
  });
});
