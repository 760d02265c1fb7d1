import { expect } from 'chai';
import { BRAND_RETRY_RULES, brandAllowsAttempt, hourOf, retryAllowed, type CardAttemptBucket, type CountedAttemptKind } from '../../../../../domain/payment/retry/brand-retry-rules';

const NOW = new Date('2026-11-30T12:30:00.000Z');
const HOUR = 3_600_000;
const bucket = (kind: CountedAttemptKind, count: number, hoursAgo = 0, amount = 1_000): CardAttemptBucket => ({ kind, amount, count, hour: hourOf(new Date(NOW.getTime() - hoursAgo * HOUR)) });

describe('brand retry rules', () => {
  it('is a table with one sourced row per brand rule', () => {
    expect(BRAND_RETRY_RULES.map((r) => r.network)).to.deep.equal(['visa', 'mastercard', 'elo']);
    for (const rule of BRAND_RETRY_RULES) expect(rule.source, rule.network).to.match(/\w{10,}/);
  });

  const cases: Array<{ name: string; network: 'visa' | 'mastercard' | 'elo' | 'amex' | null; history: CardAttemptBucket[]; amount?: number; allowed: boolean }> = [
    { name: 'Visa: retry 15 (15 reversible declines) is allowed', network: 'visa', history: [bucket('reversible_decline', 15)], allowed: true },
    { name: 'Visa: retry 16 (16 reversible declines in 30 days) is refused', network: 'visa', history: [bucket('reversible_decline', 10, 1), bucket('reversible_decline', 6, 29 * 24)], allowed: false },
    { name: 'Visa: declines older than 30 days do not count', network: 'visa', history: [bucket('reversible_decline', 10), bucket('reversible_decline', 6, 31 * 24)], allowed: true },
    { name: 'Visa: other amounts count (same card and merchant)', network: 'visa', history: [bucket('reversible_decline', 8, 0, 500), bucket('reversible_decline', 8, 0, 900)], allowed: false },
    { name: 'Visa: failures without an answer are not declines', network: 'visa', history: [bucket('failed_after_sending', 40)], allowed: true },
    { name: 'Mastercard: the 7th attempt in 24 hours is allowed', network: 'mastercard', history: [bucket('reversible_decline', 4), bucket('failed_after_sending', 2, 5)], allowed: true },
    { name: 'Mastercard: the 8th attempt in 24 hours is refused', network: 'mastercard', history: [bucket('reversible_decline', 4), bucket('irreversible_decline', 1), bucket('failed_after_sending', 2, 20)], allowed: false },
    { name: 'Mastercard: attempts of another amount are another transaction', network: 'mastercard', history: [bucket('reversible_decline', 7, 0, 2_000)], allowed: true },
    { name: 'Mastercard: attempts older than 24 hours do not count', network: 'mastercard', history: [bucket('reversible_decline', 7, 26)], allowed: true },
    { name: 'Elo: retry 15 of the same amount is allowed', network: 'elo', history: [bucket('reversible_decline', 15, 100)], allowed: true },
    { name: 'Elo: retry 16 of the same amount in 30 days is refused', network: 'elo', history: [bucket('reversible_decline', 15, 100), bucket('irreversible_decline', 1)], allowed: false },
    { name: 'Elo: other amounts do not count', network: 'elo', history: [bucket('reversible_decline', 20, 0, 7)], allowed: true },
    { name: 'a brand without a rule is never stopped by a count', network: 'amex', history: [bucket('reversible_decline', 100)], allowed: true },
    { name: 'an unknown network is never stopped by a count', network: null, history: [bucket('reversible_decline', 100)], allowed: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const verdict = brandAllowsAttempt({ network: c.network, amount: c.amount ?? 1_000, history: c.history, now: NOW });
      expect(verdict.allowed).to.equal(c.allowed);
      if (!verdict.allowed) expect(verdict.reason).to.equal('brand_retry_limit');
    });
  }

  it('names the rule that stopped the card', () => {
    const verdict = brandAllowsAttempt({ network: 'visa', amount: 1, history: [bucket('reversible_decline', 16)], now: NOW });
    expect(verdict).to.deep.include({ allowed: false, reason: 'brand_retry_limit' });
    expect(!verdict.allowed && verdict.message).to.match(/Visa allows at most 15 retries/);
  });

  it('never retries an irreversible (ABECS) decline, whatever the budget', () => {
    const verdict = retryAllowed({ network: 'visa', amount: 1, history: [], now: NOW, lastDecline: { reversible: false, rawCode: '43' } });
    expect(verdict).to.deep.include({ allowed: false, reason: 'irreversible_decline' });
    expect(retryAllowed({ network: 'visa', amount: 1, history: [], now: NOW, lastDecline: { reversible: true, rawCode: '51' } }).allowed).to.equal(true);
  });
});
