import { expect } from 'chai';
import { IDENTITY_MODULE } from '../../../infrastructure/main/identity.module';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { paymentsModule } from '../../../infrastructure/main/payments.module';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { moduleList } from '../../../infrastructure/main/module';
import { NO_FLOWS_MODULE } from '../../support/no-flows-module';

/**
 * Card-testing blocks compare payer addresses in canonical form (issue 22, item 4): an address blocked under one
 * spelling is blocked under all of them, through POST /v1/payments.
 */
describe('account security: card-testing blocks compare canonical addresses (REST, PostgreSQL)', () => {
  let service: TestService;

  before(async () => {
    service = await startTestServiceWith(moduleList().with(IDENTITY_MODULE).with(NO_FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule()), { transport: 'in-process' });
  });
  after(() => service?.stop());

  const card = (scenario = 'approved') => ({ token: `tok_sandbox_${scenario}`, brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030, holderName: 'ANA SILVA' });
  const merchantWithAccount = async (name: string): Promise<Merchant> => {
    const m = await service.merchant(name);
    const account = await m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm_main', apiKey: 'sk_test' } });
    expect(account.status, account.text).to.equal(201);
    return m;
  };
  const declineTenFrom = async (m: Merchant, spellings: readonly string[]) => {
    for (let i = 0; i < 10; i++) {
      const r = await m.sandbox.post('/v1/payments', { amount: 100 + i, card: card('insufficient_funds'), clientIp: spellings[i % spellings.length] });
      expect(r.status, r.text).to.equal(201);
    }
  };
  const expectBlocked = async (m: Merchant, clientIp: string) => {
    const r = await m.sandbox.post('/v1/payments', { amount: 100, card: card(), clientIp });
    expect(r.status, `${clientIp}: ${r.text}`).to.equal(403);
    expect(r.body.error.code).to.equal('blocked_by_security_policy');
  };

  it('declines under several spellings of one IPv6 address add up, and the block holds for every spelling', async () => {
    const m = await merchantWithAccount('IPv6 spellings');
    await declineTenFrom(m, ['2001:db8::5', '2001:0db8::5', '2001:db8:0:0::5', '2001:DB8:0:0:0:0:0:5']);
    for (const clientIp of ['2001:db8::5', '2001:db8:0:0::5', '2001:0db8::5', '2001:0DB8:0000:0000:0000:0000:0000:0005']) await expectBlocked(m, clientIp);
    const neighbour = await m.sandbox.post('/v1/payments', { amount: 100, card: card(), clientIp: '2001:db8::6' });
    expect(neighbour.body.status).to.equal('captured');
  });

  it('an IPv4-mapped IPv6 address is its IPv4 address, both ways', async () => {
    const m = await merchantWithAccount('Mapped IPv4');
    await declineTenFrom(m, ['203.0.113.77']);
    for (const clientIp of ['::ffff:203.0.113.77', '::FFFF:CB00:714D', '0:0:0:0:0:ffff:cb00:714d']) await expectBlocked(m, clientIp);

    const other = await merchantWithAccount('Mapped IPv4, other way');
    await declineTenFrom(other, ['::ffff:198.51.100.20']);
    await expectBlocked(other, '198.51.100.20');
  });

  it('stores and shows the canonical form; what is not an address is 422 and creates nothing', async () => {
    const m = await merchantWithAccount('Canonical storage');
    const created = await m.sandbox.post('/v1/payments', { amount: 100, card: card(), clientIp: '::ffff:203.0.113.5' });
    expect(created.status).to.equal(201);
    expect(created.body.clientIp).to.equal('203.0.113.5');
    expect((await m.sandbox.get(`/v1/payments/${created.body.id}`)).body.clientIp).to.equal('203.0.113.5');
    const v6 = await m.sandbox.post('/v1/payments', { amount: 100, card: card(), clientIp: '2001:0DB8:0:0::A' });
    expect(v6.body.clientIp).to.equal('2001:db8::a');
    for (const clientIp of ['fe80::1%eth0', '127.1', '203.0.113.5 ', 'not-an-ip', '1.2.3.4.5']) {
      const r = await m.sandbox.post('/v1/payments', { amount: 100, card: card(), clientIp });
      expect(r.status, clientIp).to.equal(422);
      expect(r.body.error).to.include({ code: 'validation_failed', param: 'body.clientIp' });
    }
    expect((await m.sandbox.get('/v1/payments')).body.data).to.have.length(2);
  });
});
