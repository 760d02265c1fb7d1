import { expect } from 'chai';
import { renewalRetryDecision, type RenewalFailure } from '../../../../domain/subscription/renewal-retry-policy';

describe('renewalRetryDecision', () => {
  const failedAt = new Date('2026-03-01T10:00:00.000Z');
  const reversible = { reversibility: 'REVERSIBLE' as const, retryAction: 'RETRY_LATER' };
  const base: RenewalFailure = { decline: reversible, stopReason: 'issuer_declined', retriesDone: 0, failedAt };
  const cases: Array<[string, Partial<RenewalFailure>, unknown]> = [
    ['first failure: a day later', {}, { willRetry: true, nextRetryAt: new Date('2026-03-02T10:00:00.000Z'), attempt: 1 }],
    ['after one retry: three days later', { retriesDone: 1 }, { willRetry: true, nextRetryAt: new Date('2026-03-04T10:00:00.000Z'), attempt: 2 }],
    ['after two retries: five days later', { retriesDone: 2 }, { willRetry: true, nextRetryAt: new Date('2026-03-06T10:00:00.000Z'), attempt: 3 }],
    ['after three retries: exhausted', { retriesDone: 3 }, { willRetry: false, reason: 'retries_exhausted' }],
    ['irreversible decline: never', { decline: { reversibility: 'irreversible', retryAction: 'RETRY_WITH_ANOTHER_CARD' } }, { willRetry: false, reason: 'irreversible_decline' }],
    ['do-not-retry action: never', { decline: { reversibility: 'REVERSIBLE', retryAction: 'DO_NOT_RETRY' } }, { willRetry: false, reason: 'irreversible_decline' }],
    ['brand budget reached: never', { decline: null, stopReason: 'brand_retry_limit' }, { willRetry: false, reason: 'brand_retry_limit' }],
    ['no issuer answer (no account): retried', { decline: null, stopReason: 'all_failed' }, { willRetry: true, nextRetryAt: new Date('2026-03-02T10:00:00.000Z'), attempt: 1 }],
  ];
  for (const [name, change, expected] of cases) {
    it(name, () => expect(renewalRetryDecision({ ...base, ...change })).to.deep.equal(expected));
  }
});
