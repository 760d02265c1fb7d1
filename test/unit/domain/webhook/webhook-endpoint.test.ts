import { expect } from 'chai';
import { DomainError } from '../../../../domain/shared/domain-error';
import { WebhookEndpoint, type RegisterEndpointInput } from '../../../../domain/webhook/webhook-endpoint';

const t0 = new Date('2026-01-01T00:00:00.000Z');
const day = 24 * 3600 * 1000;
const at = (ms: number) => new Date(t0.getTime() + ms);

function endpoint(overrides: Partial<RegisterEndpointInput> = {}): WebhookEndpoint {
  return WebhookEndpoint.register({
    id: 'whe_1',
    organizationId: 'org_1',
    environment: 'sandbox',
    deployment: 'production',
    url: 'https://hooks.example.com/h',
    enabledEvents: ['payment.*'],
    secret: 'whsec_one',
    now: t0,
    ...overrides,
  });
}

describe('WebhookEndpoint', () => {
  it('registers active, or disabled when enabled is false', () => {
    expect(endpoint().status).to.equal('active');
    expect(endpoint({ enabled: false }).status).to.equal('disabled');
  });
  it('applies the registration rules', () => {
    expect(() => endpoint({ url: 'http://hooks.example.com' })).to.throw(DomainError);
    expect(() => endpoint({ enabledEvents: ['nope.x'] })).to.throw(DomainError);
    expect(() => endpoint({ customHeaders: { Host: 'x' } })).to.throw(DomainError);
    expect(() => endpoint({ description: 'd'.repeat(501) })).to.throw(DomainError);
  });
  it('counts failures, becomes failing, and a 2xx resets', () => {
    const ep = endpoint();
    ep.recordAttempt(false, at(1));
    ep.recordAttempt(false, at(2));
    expect(ep.status).to.equal('failing');
    expect(ep.state.consecutiveFailures).to.equal(2);
    ep.recordAttempt(true, at(3));
    expect(ep.status).to.equal('active');
    expect(ep.state.consecutiveFailures).to.equal(0);
  });
  it('auto-disables at 20 consecutive failures after 3 days without success from registration', () => {
    const ep = endpoint();
    for (let i = 0; i < 19; i++) expect(ep.recordAttempt(false, at(3 * day + i)).autoDisabled).to.equal(false);
    const outcome = ep.recordAttempt(false, at(3 * day + 100));
    expect(outcome.autoDisabled).to.equal(true);
    expect(ep.status).to.equal('auto_disabled');
    expect(ep.state.disabledReason).to.match(/20 consecutive/);
    expect(ep.receivesDeliveries()).to.equal(false);
  });
  it('does not auto-disable on 20 failures within 3 days', () => {
    const ep = endpoint();
    for (let i = 0; i < 25; i++) ep.recordAttempt(false, at(day + i));
    expect(ep.status).to.equal('failing');
  });
  it('re-enabling resets failures and the reason', () => {
    const ep = endpoint();
    for (let i = 0; i < 20; i++) ep.recordAttempt(false, at(4 * day + i));
    expect(ep.status).to.equal('auto_disabled');
    ep.applyPatch({ enabled: true }, 'production', at(5 * day));
    expect(ep.status).to.equal('active');
    expect(ep.state.consecutiveFailures).to.equal(0);
    expect(ep.state.disabledReason).to.equal(null);
  });
  it('disabling through PATCH reports the switch-off so queued deliveries get canceled', () => {
    const ep = endpoint();
    expect(ep.applyPatch({ enabled: false }, 'production', at(1)).switchedOff).to.equal(true);
    expect(ep.status).to.equal('disabled');
    expect(ep.applyPatch({ enabled: false }, 'production', at(2)).switchedOff).to.equal(false);
    expect(() => ep.assertReceivesDeliveries()).to.throw(DomainError).with.property('code', 'endpoint_disabled');
  });
  it('changing the URL resets consecutive failures', () => {
    const ep = endpoint();
    ep.recordAttempt(false, at(1));
    ep.applyPatch({ url: 'https://other.example.com/h' }, 'production', at(2));
    expect(ep.state.consecutiveFailures).to.equal(0);
    expect(ep.status).to.equal('active');
    expect(ep.state.url).to.equal('https://other.example.com/h');
  });
  it('patches description (null clears), events and headers', () => {
    const ep = endpoint({ description: 'x', customHeaders: { 'X-A': '1', 'X-B': '2' } });
    ep.applyPatch({ description: null, enabledEvents: ['*', 'payment.*'], customHeaders: { 'X-A': null, 'X-C': '3' } }, 'production', at(1));
    expect(ep.state.description).to.equal(null);
    expect(ep.state.enabledEvents).to.deep.equal(['*']);
    expect(ep.state.customHeaders).to.deep.equal({ 'X-B': '2', 'X-C': '3' });
  });
  it('subscribes per enabledEvents and never to the test type', () => {
    const ep = endpoint({ enabledEvents: ['*'] });
    expect(ep.subscribesTo('payment.captured')).to.equal(true);
    expect(ep.subscribesTo('webhook_endpoint.test')).to.equal(false);
  });

  describe('secret rotation', () => {
    it('signs with the new and previous secret during the 24h grace window', () => {
      const ep = endpoint();
      ep.rotateSecret('whsec_two', '24h', at(0));
      expect(ep.signingSecrets(at(1000))).to.deep.equal(['whsec_two', 'whsec_one']);
      expect(ep.previousSecretExpiresAt(at(1000))).to.deep.equal(at(day));
      expect(ep.signingSecrets(at(day))).to.deep.equal(['whsec_two']);
      expect(ep.previousSecretExpiresAt(at(day))).to.equal(null);
    });
    it('keeps only one previous secret: rotating again inside the window discards the oldest', () => {
      const ep = endpoint();
      ep.rotateSecret('whsec_two', '24h', at(0));
      ep.rotateSecret('whsec_three', '24h', at(1000));
      expect(ep.signingSecrets(at(2000))).to.deep.equal(['whsec_three', 'whsec_two']);
    });
    it('with none the old secret stops at once', () => {
      const ep = endpoint();
      ep.rotateSecret('whsec_two', '24h', at(0));
      ep.rotateSecret('whsec_three', 'none', at(1000));
      expect(ep.signingSecrets(at(2000))).to.deep.equal(['whsec_three']);
    });
  });

  it('is removed logically once', () => {
    const ep = endpoint();
    expect(ep.remove(at(1)).switchedOff).to.equal(true);
    expect(ep.deleted).to.equal(true);
    expect(ep.receivesDeliveries()).to.equal(false);
    expect(() => ep.remove(at(2))).to.throw(DomainError);
    // A retry or test on it is refused without asking to enable what cannot be enabled again.
    expect(() => ep.assertReceivesDeliveries()).to.throw(DomainError, /was deleted/).and.not.to.match(/enable it/);
  });
});
