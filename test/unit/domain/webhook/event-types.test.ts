import { expect } from 'chai';
import {
  EVENT_TYPE_GROUPS,
  TEST_EVENT_TYPE,
  TEST_EVENT_TYPE_ENTRY,
  isSubscribable,
  matchesSubscription,
  typeFilterMatches,
} from '../../../../domain/webhook/event-types';

const SPEC_TYPES = [
  'payment.authorized', 'payment.captured', 'payment.voided', 'payment.canceled', 'payment.failed', 'payment.attempt_declined',
  'payment.checkout_not_configured', 'payment.refunded', 'payment.partially_refunded', 'payment.authorization_expiring',
  'payment.fraud_review_resolved', 'antifraud.assessment_completed', 'payment_method.verified', 'invoice.payment_failed',
  'subscription.canceled_by_issuer', 'retry.exhausted', 'recipient.updated', 'flow.notification',
];

describe('event type catalog', () => {
  const all = EVENT_TYPE_GROUPS.flatMap((g) => g.types.map((t) => t.type));
  it('holds every emitted type of the spec, each in the group of its resource with a description', () => {
    for (const type of SPEC_TYPES) expect(all, type).to.include(type);
    for (const group of EVENT_TYPE_GROUPS) {
      expect(group.wildcard).to.equal(`${group.resource}.*`);
      for (const t of group.types) {
        expect(t.type.startsWith(`${group.resource}.`), t.type).to.equal(true);
        expect(t.description).to.be.a('string').and.not.empty;
      }
    }
  });
  it('lists the subscribable-but-not-emitted types as not emitted', () => {
    const notEmitted = EVENT_TYPE_GROUPS.flatMap((g) => g.types.filter((t) => !t.emitted).map((t) => t.type));
    expect(notEmitted).to.have.members(['payment.attempt.created', 'payment_method.expiring', 'invoice.finalized', 'invoice.uncollectible',
      'chargeback.received', 'flow.published', 'connector_account.health_changed']);
    const wildcardOnly = EVENT_TYPE_GROUPS.filter((g) => g.wildcardOnly).map((g) => g.wildcard);
    expect(wildcardOnly).to.have.members(['dispute.*', 'payout.*', 'communication.*']);
  });
  it('keeps the test type out of the groups', () => {
    expect(all).not.to.include(TEST_EVENT_TYPE);
    expect(TEST_EVENT_TYPE_ENTRY.type).to.equal('webhook_endpoint.test');
    expect(isSubscribable(TEST_EVENT_TYPE)).to.equal(false);
  });
});

describe('subscription matching', () => {
  it('matches exact types', () => {
    expect(matchesSubscription(['payment.captured'], 'payment.captured')).to.equal(true);
    expect(matchesSubscription(['payment.captured'], 'payment.failed')).to.equal(false);
  });
  it('matches group wildcards, including types added later, but not other groups', () => {
    expect(matchesSubscription(['payment.*'], 'payment.captured')).to.equal(true);
    expect(matchesSubscription(['payment.*'], 'payment.brand_new_type')).to.equal(true);
    expect(matchesSubscription(['payment.*'], 'payment_method.verified')).to.equal(false);
  });
  it('matches * for every type except the test event and the audit record', () => {
    expect(matchesSubscription(['*'], 'recipient.updated')).to.equal(true);
    expect(matchesSubscription(['*'], 'webhook_endpoint.test')).to.equal(false);
    expect(matchesSubscription(['*'], 'webhook_endpoint.secret_revealed')).to.equal(false);
  });
  it('filters queries by exact type, wildcard or *', () => {
    expect(typeFilterMatches('payment.*', 'payment.failed')).to.equal(true);
    expect(typeFilterMatches('payment.*', 'payment_method.verified')).to.equal(false);
    expect(typeFilterMatches('*', 'webhook_endpoint.test')).to.equal(true);
    expect(typeFilterMatches('payment.failed', 'payment.failed')).to.equal(true);
  });
});
