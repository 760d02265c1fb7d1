import { expect } from 'chai';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { eventually } from '../../support/eventually';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { webhooksModule } from '../../../infrastructure/main/webhooks.module';
import { moduleList } from '../../../infrastructure/main/module';

/**
 * Issue 22, item 3: nothing secret is stored unsealed. The raw rows are read straight from PostgreSQL after each
 * request: neither an endpoint's signing secret nor its extra header values appear in clear in any table that
 * holds them, while replays and deliveries still carry the clear values.
 */
describe('webhook secrets at rest (raw database rows)', function () {
  this.timeout(60_000);
  let service: TestService;
  let merchant: Merchant;
  let receiver: WebhookReceiver;

  const rows = <T>(sql: string, params: unknown[]) => service.core.orm.em.fork({ useContext: false }).execute<T[]>(sql, params);
  /** Every stored Idempotency-Key answer of the merchant, as the text PostgreSQL holds. */
  const storedAnswers = () =>
    rows<{ key: string; stored: string }>(
      `select key, coalesce(response_body::text, '') || coalesce(response_headers::text, '') as stored from idempotency_keys where organization_id = ?`,
      [merchant.organizationId],
    );

  before(async () => {
    receiver = await new WebhookReceiver().start();
    service = await startTestServiceWith(moduleList().with(webhooksModule({ pollIntervalMs: 100 })), {
      transport: 'in-process',
      config: { deployment: 'local', webhookTimeoutMs: 2_000 },
    });
    merchant = await service.merchant();
  });
  after(async () => {
    await service?.stop();
    await receiver?.stop();
  });

  it('create and rotate-secret with an Idempotency-Key store their answers sealed; a replay still returns the secret', async () => {
    const body = { url: receiver.url('/sealed-replay'), enabledEvents: ['payment.*'] };
    const created = await merchant.sandbox.post('/v1/webhooks', body, { 'Idempotency-Key': 'create-sealed' });
    expect(created.status).to.equal(201);
    const secret = created.body.secret as string;
    expect(secret).to.match(/^whsec_/);

    const rotated = await merchant.sandbox.post(`/v1/webhooks/${created.body.id}/rotate-secret`, {}, { 'Idempotency-Key': 'rotate-sealed' });
    expect(rotated.status).to.equal(201);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).to.match(/^whsec_/).and.not.equal(secret);

    const stored = await storedAnswers();
    expect(stored.map((row) => row.key).sort()).to.deep.equal(['create-sealed', 'rotate-sealed']);
    for (const row of stored) {
      expect(row.stored, row.key).to.match(/^"sealed:/);
      for (const clear of ['whsec_', secret.slice(6), newSecret.slice(6), created.body.id]) expect(row.stored, row.key).not.to.contain(clear);
    }

    const createReplay = await merchant.sandbox.post('/v1/webhooks', body, { 'Idempotency-Key': 'create-sealed' });
    expect(createReplay.status).to.equal(201);
    expect(createReplay.headers.get('idempotent-replayed')).to.equal('true');
    expect(createReplay.body).to.deep.equal(created.body);
    const rotateReplay = await merchant.sandbox.post(`/v1/webhooks/${created.body.id}/rotate-secret`, {}, { 'Idempotency-Key': 'rotate-sealed' });
    expect(rotateReplay.headers.get('idempotent-replayed')).to.equal('true');
    expect(rotateReplay.body.secret).to.equal(newSecret);
  });

  it('a refusal replayed under its Idempotency-Key is sealed too, and replays the same error', async () => {
    const refused = await merchant.sandbox.post('/v1/webhooks', { url: 'https://10.0.0.1/h', enabledEvents: ['*'] }, { 'Idempotency-Key': 'refused-sealed' });
    expect(refused.status).to.equal(422);
    const [row] = (await storedAnswers()).filter((r) => r.key === 'refused-sealed');
    expect(row!.stored).to.match(/^"sealed:/).and.not.contain('internal_address_blocked');
    const replay = await merchant.sandbox.post('/v1/webhooks', { url: 'https://10.0.0.1/h', enabledEvents: ['*'] }, { 'Idempotency-Key': 'refused-sealed' });
    expect(replay.status).to.equal(422);
    expect(replay.body.error).to.deep.equal(refused.body.error);
  });

  it('extra header values are sealed in the endpoint row and masked in delivery rows; a delivery still sends them in clear', async () => {
    const token = 'Bearer receiver-credential-4242';
    const created = await merchant.sandbox.post('/v1/webhooks', {
      url: receiver.url('/sealed-headers'), enabledEvents: ['payment.*'], customHeaders: { Authorization: token, 'X-Tenant': 'tenant-77' },
    });
    expect(created.status).to.equal(201);
    const patched = await merchant.sandbox.patch(`/v1/webhooks/${created.body.id}`, { customHeaders: { 'X-Tenant': 'tenant-88-patched' } });
    expect(patched.status).to.equal(200);

    const [endpoint] = await rows<{ custom_headers: Record<string, string> }>(`select custom_headers from webhook_endpoints where id = ?`, [created.body.id]);
    expect(Object.keys(endpoint!.custom_headers).sort()).to.deep.equal(['Authorization', 'X-Tenant']);
    for (const value of Object.values(endpoint!.custom_headers)) expect(value).to.match(/^sealed:/);
    const endpointText = JSON.stringify(endpoint);
    for (const clear of ['receiver-credential', 'tenant-77', 'tenant-88']) expect(endpointText).not.to.contain(clear);

    const test = await merchant.sandbox.post(`/v1/webhooks/${created.body.id}/test`, {});
    expect(test.status).to.equal(201);
    await receiver.waitFor((requests) => requests.some((r) => r.path === '/sealed-headers'), 20_000);
    const delivered = receiver.forPath('/sealed-headers')[0]!;
    expect(delivered.headers.authorization).to.equal(token);
    expect(delivered.headers['x-tenant']).to.equal('tenant-88-patched');

    const [delivery] = await eventually(async () => {
      const found = await rows<{ request_headers: Record<string, string> | null }>(
        `select request_headers from webhook_deliveries where endpoint_id = ? and request_headers is not null`, [created.body.id]);
      return found.length > 0 ? found : null;
    }, 20_000);
    expect(delivery!.request_headers!.Authorization).to.match(/^\*+4242$/);
    const deliveryText = JSON.stringify(delivery);
    for (const clear of ['receiver-credential', 'tenant-88']) expect(deliveryText).not.to.contain(clear);
  });
});
