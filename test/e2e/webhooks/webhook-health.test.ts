import { expect } from 'chai';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { webhooksModule } from '../../../infrastructure/main/webhooks.module';
import { startTestServiceWith, type TestService } from '../../support/test-service';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { moduleList } from '../../../infrastructure/main/module';

const DAY = 24 * 3600 * 1000;

describe('webhook endpoint health and isolation', function () {
  this.timeout(60_000);
  let receiver: WebhookReceiver;
  const services: TestService[] = [];

  before(async () => {
    receiver = await new WebhookReceiver().start();
  });
  after(async () => {
    for (const s of services) await s.stop();
    await receiver.stop();
  });

  it('a slow endpoint does not delay deliveries to the others', async () => {
    const service = await startTestServiceWith(moduleList().with(webhooksModule({ pollIntervalMs: 100, maxConcurrent: 8, perEndpoint: 4 })), {
      config: { deployment: 'local', webhookTimeoutMs: 1_500 },
    });
    services.push(service);
    const m = await service.merchant();
    await m.sandbox.post('/v1/webhooks', { url: receiver.url('/iso-slow'), enabledEvents: ['payment.captured'] });
    await m.sandbox.post('/v1/webhooks', { url: receiver.url('/iso-fast'), enabledEvents: ['payment.captured'] });
    receiver.answer = (req) => (req.path === '/iso-slow' ? { status: 200, delayMs: 1_300 } : { status: 200 });
    const burst = 20;
    const started = Date.now();
    await service.core.transactor.run((tx) =>
      service.core.outbox.append(
        tx,
        Array.from({ length: burst }, (_, i) => ({
          type: 'payment.captured',
          scope: { organizationId: m.organizationId, environment: 'sandbox' as const },
          object: { object: 'payment', id: `pay_iso_${i}` },
        })),
      ),
    );
    await receiver.waitFor((rs) => rs.filter((r) => r.path === '/iso-fast').length >= burst, 10_000);
    const fastDone = Date.now() - started;
    const slowSoFar = receiver.forPath('/iso-slow').length;
    // 20 slow deliveries at 4 at a time need about 6.5 s; the fast endpoint must not wait for them.
    expect(fastDone).to.be.lessThan(3_000);
    expect(slowSoFar).to.be.lessThan(burst);
    await receiver.waitFor((rs) => rs.filter((r) => r.path === '/iso-slow').length >= burst, 20_000);
  });

  it('auto-disables after 20 consecutive failures and 3 days without success, cancels the queue, and re-enables', async () => {
    const clock = new ManualClock(new Date(Date.now() - 4 * DAY));
    const service = await startTestServiceWith(moduleList().with(webhooksModule({ pollIntervalMs: 50 })), {
      clock,
      config: { deployment: 'local', webhookTimeoutMs: 1_000, webhookRetryScheduleSeconds: [1, 1, 1, 1, 1, 1] },
    });
    services.push(service);
    const m = await service.merchant();
    const ep = await m.sandbox.post('/v1/webhooks', { url: receiver.url('/dead'), enabledEvents: ['payment.*'] });
    // A healthy endpoint of the same tenant: it tells when an event has been fanned out.
    await m.sandbox.post('/v1/webhooks', { url: receiver.url('/alive'), enabledEvents: ['payment.failed'] });
    receiver.answer = (req) => (req.path === '/dead' ? { status: 500, body: 'down' } : { status: 200 });
    clock.set(new Date());
    const emit = (id: string) =>
      service.core.transactor.run((tx) =>
        service.core.outbox.append(tx, [{ type: 'payment.failed', scope: { organizationId: m.organizationId, environment: 'sandbox' }, object: { object: 'payment', id } }]),
      );
    for (let i = 0; i < 4; i++) await emit(`pay_dead_${i}`);

    let status = 'active';
    const deadline = Date.now() + 40_000;
    while (status !== 'auto_disabled' && Date.now() < deadline) {
      clock.advance(1_500);
      await new Promise((r) => setTimeout(r, 60));
      status = (await m.sandbox.get(`/v1/webhooks/${ep.body.id}`)).body.status;
    }
    const endpoint = (await m.sandbox.get(`/v1/webhooks/${ep.body.id}`)).body;
    expect(endpoint.status).to.equal('auto_disabled');
    expect(endpoint.enabled).to.equal(false);
    expect(endpoint.consecutiveFailures).to.equal(20);
    expect(endpoint.disabledReason).to.match(/20 consecutive/);
    const deliveries = (await m.sandbox.get(`/v1/webhooks/${ep.body.id}/deliveries`)).body.data as Array<{ status: string }>;
    // The four deliveries were attempted side by side; those still queued at the 20th failure are canceled.
    expect(deliveries).to.have.length(4);
    expect(deliveries.every((d) => d.status === 'disabled' || d.status === 'exhausted')).to.equal(true);
    expect(deliveries.some((d) => d.status === 'disabled')).to.equal(true);
    // Events after the switch-off get no delivery to it (fan-out forgets the endpoint it may have remembered).
    const [later] = await emit('pay_dead_later');
    await receiver.waitFor((rs) => rs.some((r) => r.path === '/alive' && r.headers['service-event-id'] === later!.id));
    expect((await m.sandbox.get(`/v1/webhooks/${ep.body.id}/deliveries`)).body.data).to.have.length(4);
    const sent = receiver.forPath('/dead').length;
    clock.advance(60_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.forPath('/dead').length).to.equal(sent);
    expect((await m.sandbox.get('/v1/webhooks/summary')).body.endpoints).to.include({ switchedOff: 1, autoDisabled: 1 });

    const enabled = await m.sandbox.patch(`/v1/webhooks/${ep.body.id}`, { enabled: true });
    expect(enabled.body).to.include({ status: 'active', enabled: true, consecutiveFailures: 0, disabledReason: null });
  });
});
