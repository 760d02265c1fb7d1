import chai, { expect } from 'chai';
import chaiAsPromised from 'chai-as-promised';
import type { SecurityGuard } from '../../../application/security/security-guard';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { ApiClient } from '../../support/api-client';
import { SmtpSink } from '../../support/smtp-sink';
import { startTestService, type TestService } from '../../support/test-service';
import type { IdentityServices } from '../../../infrastructure/main/identity.module';
import { bearer, registerAndEnroll, type Enrolled } from './identity-support';

chai.use(chaiAsPromised);

describe('account security: card testing incidents (REST, PostgreSQL, SMTP sink)', () => {
  let service: TestService<IdentityServices>;
  let api: ApiClient;
  let sink: SmtpSink;
  let guard: SecurityGuard;
  let owner: Enrolled;
  const clock = new ManualClock(new Date(Math.ceil(Date.now() / 30_000) * 30_000 + 1_000));
  const REASON = 'Reviewed the traffic with the merchant team';

  before(async () => {
    sink = new SmtpSink();
    const smtpUrl = await sink.start();
    service = await startTestService({
      clock,
      transport: 'in-process',
      config: { smtpUrl, authEmailEnabled: true },
      env: { RATE_LIMITS: 'auth.register.address=1000/15m' },
    });
    api = new ApiClient(service.url);
    guard = service.services.securityGuard;
    owner = await registerAndEnroll(api, clock);
  });

  after(async () => {
    await service?.stop();
    await sink?.stop();
  });

  const live = () => ({ ...bearer(owner.accessToken), 'Service-Environment': 'live' });
  const declines = async (count: number, context: { clientIp?: string; deviceId?: string }, card = (i: number) => 'tok_same') => {
    for (let i = 0; i < count; i++) {
      await guard.recordCardOutcome({ organizationId: owner.organizationId, environment: 'live', ...context, cardFingerprint: card(i), declined: true });
      clock.advance(1_000);
    }
  };

  it('shows the policy with the contract thresholds (owner/administrator only)', async () => {
    const policy = await api.get('/v1/security/policy', bearer(owner.accessToken));
    expect(policy.status).to.equal(200);
    expect(policy.body.cardTesting).to.include({ windowSeconds: 600, declinedThreshold: 10, distinctCardsThreshold: 5 });
  });

  it('10 declines from one IP in 10 minutes open a blocking incident, e-mail the admins, and block new card payments', async () => {
    await declines(9, { clientIp: '203.0.113.10' });
    await guard.checkCardPayment({ organizationId: owner.organizationId, environment: 'live', clientIp: '203.0.113.10' });
    await declines(1, { clientIp: '203.0.113.10' });
    const blocked = guard.checkCardPayment({ organizationId: owner.organizationId, environment: 'live', clientIp: '203.0.113.10' });
    await expect(blocked).to.be.rejected.and.eventually.have.property('code', 'blocked_by_security_policy');
    // Isolated per environment and per address.
    await guard.checkCardPayment({ organizationId: owner.organizationId, environment: 'sandbox', clientIp: '203.0.113.10' });
    await guard.checkCardPayment({ organizationId: owner.organizationId, environment: 'live', clientIp: '203.0.113.11' });

    const mail = await sink.waitFor((m) => m.to.includes(owner.email) && /card testing/i.test(m.subject));
    expect(mail.text).to.not.contain('203.0.113.10');

    const list = await api.get('/v1/security/incidents', live());
    expect(list.status).to.equal(200);
    expect(list.body.object).to.equal('list');
    expect(list.body.data).to.have.length(1);
    const incident = list.body.data[0];
    expect(incident).to.include({ type: 'card_testing', status: 'open', blocked: true, environment: 'live', confirmedFraud: false });
    expect(incident.signal).to.include({ kind: 'client_ip', reason: 'declined_threshold', declinedCount: 10 });
    expect(JSON.stringify(incident)).to.not.contain('203.0.113.10');

    const sandboxList = await api.get('/v1/security/incidents', bearer(owner.accessToken));
    expect(sandboxList.body.data).to.have.length(0);
  });

  it('actions need a reason of 10-500 characters; resolve keeps the block; unblock lifts it; all are audited', async () => {
    const [incident] = (await api.get('/v1/security/incidents', live())).body.data;
    const path = `/v1/security/incidents/${incident.id}/actions`;
    expect((await api.post(path, { action: 'resolve', reason: 'too short' }, live())).status).to.equal(422);
    expect((await api.post(path, { action: 'resolve', reason: 'x'.repeat(501) }, live())).status).to.equal(422);
    expect((await api.post(path, { action: 'delete', reason: REASON }, live())).status).to.equal(422);
    expect((await api.post(path, { action: 'resolve', reason: REASON, extra: true }, live())).status).to.equal(422);
    expect((await api.post(path, { action: 'resolve', reason: REASON })).status, 'no credential').to.equal(401);
    expect((await api.post(path, { action: 'resolve', reason: REASON }, bearer(owner.accessToken))).status, 'sandbox').to.equal(404);

    const acknowledged = await api.post(path, { action: 'acknowledge', reason: REASON }, live());
    expect(acknowledged.status).to.equal(201);
    expect(acknowledged.body.status).to.equal('acknowledged');
    const resolved = await api.post(path, { action: 'resolve', reason: REASON }, live());
    expect(resolved.body).to.include({ status: 'resolved', blocked: true });
    await expect(guard.checkCardPayment({ organizationId: owner.organizationId, environment: 'live', clientIp: '203.0.113.10' }))
      .to.be.rejected.and.eventually.have.property('code', 'blocked_by_security_policy');

    const unblocked = await api.post(path, { action: 'unblock', reason: 'Confirmed the traffic was a load test' }, live());
    expect(unblocked.status).to.equal(201);
    expect(unblocked.body.blocked).to.equal(false);
    await guard.checkCardPayment({ organizationId: owner.organizationId, environment: 'live', clientIp: '203.0.113.10' });
    expect((await api.post(path, { action: 'unblock', reason: REASON }, live())).status).to.equal(409);

    const actions = unblocked.body.auditTrail.map((e: { action: string; reason: string; actorUserId: string }) => [e.action, e.actorUserId]);
    expect(actions).to.deep.equal([
      ['opened', null],
      ['acknowledge', owner.userId],
      ['resolve', owner.userId],
      ['unblock', owner.userId],
    ]);
    expect(unblocked.body.auditTrail[3].reason).to.equal('Confirmed the traffic was a load test');
  });

  it('5 distinct cards from one device open an incident; retry_email re-sends the alert', async () => {
    clock.advance(11 * 60_000);
    const before = sink.messages.length;
    await declines(5, { deviceId: 'device-abc' }, (i) => `tok_card_${i}`);
    const list = await api.get('/v1/security/incidents?status=open', live());
    const incident = list.body.data.find((i: { signal: { kind: string } }) => i.signal.kind === 'device_id');
    expect(incident.signal).to.include({ reason: 'distinct_cards_threshold', distinctCards: 5 });
    await sink.waitFor((m) => sink.messages.indexOf(m) >= before);
    const retried = await api.post(`/v1/security/incidents/${incident.id}/actions`, { action: 'retry_email', reason: REASON }, live());
    expect(retried.status).to.equal(409);
  });

  it('analysts and developers cannot act; API keys cannot act either', async () => {
    const merchantKey = await api.post('/v1/api-keys', { name: 'ops', environment: 'live' }, bearer(owner.accessToken));
    const [incident] = (await api.get('/v1/security/incidents', live())).body.data;
    const byKey = await api.post(`/v1/security/incidents/${incident.id}/actions`, { action: 'acknowledge', reason: REASON }, bearer(merchantKey.body.secret));
    expect(byKey.status).to.equal(403);
    const listByKey = await api.get('/v1/security/incidents', bearer(merchantKey.body.secret));
    expect(listByKey.status).to.equal(200);
  });
});
