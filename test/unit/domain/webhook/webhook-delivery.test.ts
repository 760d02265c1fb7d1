import { expect } from 'chai';
import { DEFAULT_RETRY_POLICY } from '../../../../domain/webhook/retry-policy';
import { WebhookDelivery, truncateResponseBody } from '../../../../domain/webhook/webhook-delivery';

const t0 = new Date('2026-01-01T00:00:00.000Z');
const mid = () => 0.5;

function delivery(isTest = false): WebhookDelivery {
  return WebhookDelivery.create({
    id: 'whd_1', organizationId: 'org_1', environment: 'sandbox', endpointId: 'whe_1', eventId: 'evt_1',
    eventType: 'payment.captured', body: '{"id":"evt_1"}', isTest, now: t0,
  });
}
const fail = (startedAt: Date, status: number | null = 500) => ({ startedAt, durationMs: 10, responseStatus: status, responseBody: 'nope', error: status === null ? 'timeout' : null });
const ok = (startedAt: Date) => ({ startedAt, durationMs: 10, responseStatus: 204, responseBody: '', error: null });

describe('WebhookDelivery', () => {
  it('starts pending and due now', () => {
    const d = delivery();
    expect(d.status).to.equal('pending');
    expect(d.state.nextRetryAt).to.deep.equal(t0);
    expect(d.nextAttemptNumber()).to.equal(1);
  });
  it('fails with nextRetryAt, then exhausts after the 7th attempt', () => {
    const d = delivery();
    let now = t0;
    for (let attempt = 1; attempt <= 6; attempt++) {
      d.recordAttempt(fail(now), DEFAULT_RETRY_POLICY, mid);
      expect(d.status).to.equal('failed');
      expect(d.state.nextRetryAt).to.be.instanceOf(Date);
      now = d.state.nextRetryAt!;
    }
    d.recordAttempt(fail(now, null), DEFAULT_RETRY_POLICY, mid);
    expect(d.status).to.equal('exhausted');
    expect(d.state.attempts).to.equal(7);
    expect(d.state.nextRetryAt).to.equal(null);
    expect(d.state.attemptLog.map((a) => a.number)).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
  });
  it('treats 2xx as success and 3xx as failure (redirects are not followed)', () => {
    const d = delivery();
    d.recordAttempt(fail(t0, 302), DEFAULT_RETRY_POLICY, mid);
    expect(d.status).to.equal('failed');
    d.recordAttempt(ok(t0), DEFAULT_RETRY_POLICY, mid);
    expect(d.status).to.equal('succeeded');
    expect(d.state.nextRetryAt).to.equal(null);
  });
  it('manual retry from any state resets attempts and queues it', () => {
    const d = delivery();
    d.recordAttempt(ok(t0), DEFAULT_RETRY_POLICY, mid);
    d.manualRetry(new Date(t0.getTime() + 5));
    expect(d.status).to.equal('pending');
    expect(d.state.attempts).to.equal(0);
    expect(d.nextAttemptNumber()).to.equal(1);
  });
  it('is canceled when the endpoint is switched off only while queued', () => {
    const queued = delivery();
    queued.recordAttempt(fail(t0), DEFAULT_RETRY_POLICY, mid);
    expect(queued.cancelForSwitchedOffEndpoint(t0)).to.equal(true);
    expect(queued.status).to.equal('disabled');
    const done = delivery();
    done.recordAttempt(ok(t0), DEFAULT_RETRY_POLICY, mid);
    expect(done.cancelForSwitchedOffEndpoint(t0)).to.equal(false);
    expect(done.status).to.equal('succeeded');
  });
  it('does not retry a test delivery automatically', () => {
    const d = delivery(true);
    d.recordAttempt(fail(t0), DEFAULT_RETRY_POLICY, mid);
    expect(d.status).to.equal('failed');
    expect(d.state.nextRetryAt).to.equal(null);
  });
  it('stores the response truncated at 8 KB with the flag', () => {
    expect(truncateResponseBody('a'.repeat(8192))).to.deep.equal({ body: 'a'.repeat(8192), truncated: false });
    const cut = truncateResponseBody('a'.repeat(9000));
    expect(cut.truncated).to.equal(true);
    expect(cut.body).to.have.length(8192);
    const multi = truncateResponseBody('a' + 'é'.repeat(5000));
    expect(Buffer.byteLength(multi.body)).to.be.at.most(8192);
    expect(multi.body.endsWith('é')).to.equal(true);
    const d = delivery();
    d.recordAttempt({ ...fail(t0), responseBody: 'x'.repeat(10000) }, DEFAULT_RETRY_POLICY, mid);
    expect(d.state.lastResponse).to.include({ status: 500, truncated: true });
  });
});
