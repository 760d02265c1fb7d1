import { expect } from 'chai';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { natsServerBinary, PrivateNats } from '../../support/private-nats';
import { eventually } from '../../support/eventually';

/**
 * NATS down: the edge keeps taking payments (the outbox holds their events) and says so on /health/ready (200, events
 * degraded), and once NATS is back the events leave and reach webhooks within a couple of seconds, not after the relay's
 * and the consumers' long back-offs.
 */
describe('event transport outage: payments go on, events resume when NATS returns', function () {
  this.timeout(120_000);
  let nats: PrivateNats;
  let service: TestService;
  let receiver: WebhookReceiver;
  let merchant: Merchant;

  before(async function () {
    if (!natsServerBinary()) throw new Error('nats-server binary not found: this test needs a NATS server of its own to stop');
    nats = await PrivateNats.start();
    receiver = await new WebhookReceiver().start();
    service = await startTestService({ config: { deployment: 'local', natsUrl: nats.url } });
    merchant = await service.merchant('Outage merchant');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'primary', credentials: { merchantId: 'm_outage', apiKey: 'sk_test' } });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
    const endpoint = await merchant.sandbox.post('/v1/webhooks', { url: receiver.url('/outage'), enabledEvents: ['payment.*'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(201);
  });
  after(async () => {
    await nats?.up();
    await service?.stop();
    await receiver?.stop();
  });

  it('takes a payment while NATS is down, answers ready with events degraded, and delivers its event soon after NATS returns', async () => {
    await nats.kill();

    const payment = await merchant.sandbox.post('/v1/payments', {
      amount: 4_321,
      card: { token: 'tok_sandbox_approved', brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030, holderName: 'ANA SILVA' },
    });
    expect(payment.status, JSON.stringify(payment.body)).to.equal(201);
    const paymentId = payment.body.id as string;

    // The client notices the lost connection within its ping or on the next write: poll rather than assume when.
    const ready = await eventually(async () => {
      const answer = await service.client().get('/health/ready');
      return answer.body.checks?.events === 'degraded' ? answer : null;
    }, 20_000, 100);
    expect(ready.status).to.equal(200);
    expect(ready.body).to.deep.include({ status: 'degraded', down: [], degraded: ['events'] });
    expect(ready.body.checks).to.include({ database: 'up', events: 'degraded', 'connector:sandbox': 'up' });

    // As in a long outage, the relay fails several tries (each drain is one), which grows its back-off: it reached
    // 6.4 s here (10 s with the production poll interval) before the fix, and each try waited out a 5 s publish timeout.
    for (let attempt = 0; attempt < 5; attempt += 1) await service.core.relay.drain();
    expect(receiver.requests.filter((r) => JSON.parse(r.rawBody.toString('utf8')).data?.object?.id === paymentId)).to.have.length(0);

    await nats.up();
    const returnedAt = Date.now();
    await receiver.waitFor((requests) => requests.some((r) => JSON.parse(r.rawBody.toString('utf8')).data?.object?.id === paymentId), 30_000);
    const elapsedMs = Date.now() - returnedAt;
    // Was about 14 s (relay back-off plus a 5 s publish timeout per try); a second or two now, bounded for a busy machine.
    expect(elapsedMs, `delivered ${elapsedMs} ms after NATS returned`).to.be.below(5_000);

    const recovered = await eventually(async () => {
      const answer = await service.client().get('/health/ready');
      return answer.body.checks?.events === 'up' ? answer : null;
    }, 10_000, 100);
    expect(recovered.status).to.equal(200);
    expect(recovered.body.status).to.equal('ready');
  });
});
