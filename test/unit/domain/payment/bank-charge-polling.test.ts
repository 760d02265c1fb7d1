import { expect } from 'chai';
import { nextBankPollAt } from '../../../../domain/payment/bank-charge-polling';

const T0 = Date.parse('2026-11-26T12:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);
const MIN = 60_000;

/** When an open Pix or boleto charge is next asked about (docs/pix-boleto.md): back-off with a floor, a ceiling and the expiry. */
describe('nextBankPollAt', () => {
  const rows: Array<[string, number, number | null, number]> = [
    // [case, waited so far (ms), expires after issue (ms) or null, next poll after issue (ms)]
    ['just issued: one minute later (the floor)', 0, null, MIN],
    ['waited 10 min: half of it, 5 min later', 10 * MIN, null, 15 * MIN],
    ['waited 5 h: at most 30 min later (the ceiling)', 300 * MIN, null, 330 * MIN],
    ['never after the expiry: at the expiry', 10 * MIN, 12 * MIN, 12 * MIN],
    ['past the expiry already: now, to settle it', 20 * MIN, 12 * MIN, 20 * MIN],
  ];
  for (const [name, waited, expiresIn, expected] of rows) {
    it(name, () => {
      const next = nextBankPollAt({ since: at(0), now: at(waited), expiresAt: expiresIn === null ? null : at(expiresIn) });
      expect(next.getTime() - T0).to.equal(expected);
    });
  }

  it('takes another schedule', () => {
    expect(nextBankPollAt({ since: at(0), now: at(0), expiresAt: null, schedule: { minIntervalMs: 1_000, maxIntervalMs: 2_000 } }).getTime() - T0).to.equal(1_000);
  });
});
