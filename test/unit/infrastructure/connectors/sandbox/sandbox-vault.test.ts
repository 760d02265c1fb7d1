import { expect } from 'chai';
import { scenarioNameForToken } from '../../../../../infrastructure/connectors/sandbox/scenarios';
import { SANDBOX_TEST_CARDS, brandOf, cardRefusals, luhnValid, tokenizeCard } from '../../../../../infrastructure/connectors/sandbox/sandbox-vault';

describe('sandbox vault rules (contract.md 5, browser tokenization)', () => {
  const now = new Date('2026-11-22T00:00:00.000Z');

  it('maps every test number to the token of its scenario, which the sandbox acquirer then plays', () => {
    const expected: Record<string, string> = {
      '4111111111111111': 'approved',
      '4000000000009995': 'insufficient_funds',
      '4000000000000069': 'expired_card',
      '4000000000000119': 'processing_error',
      '4000000000003220': 'three_ds',
      '4000000000000259': 'fraud_review',
    };
    expect(SANDBOX_TEST_CARDS).to.deep.equal(expected);
    for (const [number, scenario] of Object.entries(expected)) {
      expect(luhnValid(number), number).to.equal(true);
      expect(scenarioNameForToken(tokenizeCard({ number, cvv: '123', expMonth: 1, expYear: 2030 }).token)).to.equal(scenario);
    }
    expect(scenarioNameForToken(tokenizeCard({ number: '5555555555554444', cvv: '123', expMonth: 1, expYear: 2030 }).token)).to.equal('approved');
  });

  it('refuses Luhn-invalid numbers and malformed or expired cards', () => {
    expect(cardRefusals({ number: '4111111111111112', cvv: '123', expMonth: 1, expYear: 2030 }, now).map((r) => r.param)).to.deep.equal(['number']);
    expect(cardRefusals({ number: '4111', cvv: '1', expMonth: 13, expYear: 2030 }, now).map((r) => r.param)).to.deep.equal(['number', 'cvv', 'expMonth']);
    expect(cardRefusals({ number: '4111111111111111', cvv: '123', expMonth: 10, expYear: 2026 }, now).map((r) => r.param)).to.deep.equal(['expYear']);
    expect(cardRefusals({ number: '4111111111111111', cvv: '1234', expMonth: 11, expYear: 2026 }, now)).to.deep.equal([]);
  });

  it('names the brand by BIN', () => {
    expect(brandOf('4111111111111111')).to.equal('visa');
    expect(brandOf('5555555555554444')).to.equal('mastercard');
    expect(brandOf('2221000000000009')).to.equal('mastercard');
    expect(brandOf('378282246310005')).to.equal('amex');
    expect(brandOf('6362970000457013')).to.equal('elo');
    expect(brandOf('6062825624254001')).to.equal('hipercard');
  });
});
