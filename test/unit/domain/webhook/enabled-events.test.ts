import { expect } from 'chai';
import { DomainError } from '../../../../domain/shared/domain-error';
import { normalizeEnabledEvents } from '../../../../domain/webhook/enabled-events';

function errorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected a DomainError');
}

describe('enabledEvents normalization', () => {
  it('keeps exact types and wildcards', () => {
    expect(normalizeEnabledEvents(['payment.captured', 'recipient.*'])).to.deep.equal(['payment.captured', 'recipient.*']);
  });
  it('drops types covered by a wildcard of the list and duplicates', () => {
    expect(normalizeEnabledEvents(['payment.captured', 'payment.*', 'payment.failed', 'invoice.payment_failed', 'invoice.payment_failed']))
      .to.deep.equal(['payment.*', 'invoice.payment_failed']);
  });
  it('lets * replace every other entry', () => {
    expect(normalizeEnabledEvents(['payment.captured', '*', 'flow.*'])).to.deep.equal(['*']);
  });
  it('accepts subscribable types not emitted in this version', () => {
    for (const t of ['payment.attempt.created', 'payment_method.expiring', 'invoice.finalized', 'invoice.uncollectible', 'dispute.*',
      'chargeback.received', 'payout.*', 'flow.published', 'connector_account.health_changed', 'communication.*']) {
      expect(normalizeEnabledEvents([t])).to.deep.equal([t]);
    }
  });
  it('refuses an unknown type with 422 code unknown_event_type and the entry param', () => {
    const e = errorOf(() => normalizeEnabledEvents(['payment.captured', 'payment.exploded']));
    expect(e.code).to.equal('unknown_event_type');
    expect(e.meta.param).to.equal('body.enabledEvents[1]');
    expect(errorOf(() => normalizeEnabledEvents(['nosuch.*'])).code).to.equal('unknown_event_type');
    expect(errorOf(() => normalizeEnabledEvents(['payment.**'])).code).to.equal('unknown_event_type');
  });
  it('refuses webhook_endpoint.test', () => {
    const e = errorOf(() => normalizeEnabledEvents(['webhook_endpoint.test']));
    expect(e.code).to.equal('event_type_not_subscribable');
    expect(e.meta.param).to.equal('body.enabledEvents[0]');
    expect(errorOf(() => normalizeEnabledEvents(['webhook_endpoint.secret_revealed'])).code).to.equal('unknown_event_type');
  });
  it('enforces 1-100 entries of 1-100 characters', () => {
    expect(errorOf(() => normalizeEnabledEvents([])).code).to.equal('validation_failed');
    expect(errorOf(() => normalizeEnabledEvents(new Array(101).fill('payment.captured'))).code).to.equal('validation_failed');
    expect(normalizeEnabledEvents(new Array(100).fill('payment.captured'))).to.deep.equal(['payment.captured']);
    expect(errorOf(() => normalizeEnabledEvents([''])).code).to.equal('validation_failed');
    expect(errorOf(() => normalizeEnabledEvents(['x'.repeat(101)])).code).to.equal('validation_failed');
  });
});
