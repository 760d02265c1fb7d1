import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { IDENTITY_MODULE } from '../../../infrastructure/main/identity.module';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { paymentsModule } from '../../../infrastructure/main/payments.module';
import { moduleList } from '../../../infrastructure/main/module';
import { ApiClient } from '../../support/api-client';
import { NO_FLOWS_MODULE } from '../../support/no-flows-module';
import { startTestServiceWith, type TestService } from '../../support/test-service';

/**
 * The card-testing pseudonyms are keyed by an installation secret of their own, not by SESSION_SECRET: rotating
 * SESSION_SECRET (docs/operations.md) keeps every address block, through POST /v1/payments after a restart.
 */
describe('account security: rotating SESSION_SECRET keeps card-testing blocks (REST, PostgreSQL)', () => {
  const modules = moduleList().with(IDENTITY_MODULE).with(NO_FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule());
  const credentialsKey = randomBytes(32).toString('base64');
  const secretA = randomBytes(32).toString('base64');
  const secretB = randomBytes(32).toString('base64');
  const started: TestService[] = [];
  const start = async (sessionSecret: string, joining?: TestService) => {
    const service = await startTestServiceWith(modules, {
      transport: 'in-process',
      env: { CREDENTIALS_KEY: credentialsKey, SESSION_SECRET: sessionSecret },
      ...(joining ? { joining } : {}),
    });
    started.push(service);
    return service;
  };
  after(async () => {
    for (const service of started.reverse()) await service.stop();
  });

  const card = (scenario = 'approved') => ({ token: `tok_sandbox_${scenario}`, brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030, holderName: 'ANA SILVA' });

  it('an address blocked under SESSION_SECRET=A is still refused after a restart with SESSION_SECRET=B,A', async () => {
    const first = await start(secretA);
    const m = await first.merchant('Rotation');
    const account = await m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm_main', apiKey: 'sk_test' } });
    expect(account.status, account.text).to.equal(201);
    for (let i = 0; i < 10; i++) {
      const declined = await m.sandbox.post('/v1/payments', { amount: 100 + i, card: card('insufficient_funds'), clientIp: '203.0.113.91' });
      expect(declined.status, declined.text).to.equal(201);
    }
    const blocked = await m.sandbox.post('/v1/payments', { amount: 100, card: card(), clientIp: '203.0.113.91' });
    expect(blocked.status, blocked.text).to.equal(403);
    await first.stop();

    const rotated = await start(`${secretB},${secretA}`, first);
    const client = new ApiClient(rotated.url, m.sandboxKey);
    const refused = await client.post('/v1/payments', { amount: 100, card: card(), clientIp: '203.0.113.91' });
    expect(refused.status, `after the rotation: ${refused.text}`).to.equal(403);
    expect(refused.body.error.code).to.equal('blocked_by_security_policy');
    const neighbour = await client.post('/v1/payments', { amount: 100, card: card(), clientIp: '203.0.113.92' });
    expect(neighbour.body.status, neighbour.text).to.equal('captured');
  });
});
