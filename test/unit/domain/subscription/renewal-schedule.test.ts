import { expect } from 'chai';
import { chargeDate, type RenewalInterval } from '../../../../domain/subscription/renewal-schedule';

describe('chargeDate (calendar-aware renewal schedule)', () => {
  const cases: Array<[string, RenewalInterval, number, number, string]> = [
    ['2026-01-10T09:30:00.000Z', 'day', 1, 0, '2026-01-10T09:30:00.000Z'],
    ['2026-01-10T09:30:00.000Z', 'day', 3, 2, '2026-01-16T09:30:00.000Z'],
    ['2026-01-10T09:30:00.000Z', 'week', 2, 1, '2026-01-24T09:30:00.000Z'],
    ['2026-01-31T12:00:00.000Z', 'month', 1, 1, '2026-02-28T12:00:00.000Z'],
    ['2026-01-31T12:00:00.000Z', 'month', 1, 2, '2026-03-31T12:00:00.000Z'],
    ['2026-01-31T12:00:00.000Z', 'month', 1, 3, '2026-04-30T12:00:00.000Z'],
    ['2028-01-31T12:00:00.000Z', 'month', 1, 1, '2028-02-29T12:00:00.000Z'],
    ['2026-08-31T00:00:00.000Z', 'month', 3, 1, '2026-11-30T00:00:00.000Z'],
    ['2026-11-15T00:00:00.000Z', 'month', 2, 1, '2027-01-15T00:00:00.000Z'],
    ['2026-12-31T23:59:59.999Z', 'month', 14, 1, '2028-02-29T23:59:59.999Z'],
    ['2028-02-29T10:00:00.000Z', 'year', 1, 1, '2029-02-28T10:00:00.000Z'],
    ['2028-02-29T10:00:00.000Z', 'year', 1, 4, '2032-02-29T10:00:00.000Z'],
    ['2026-05-31T10:00:00.000Z', 'year', 2, 1, '2028-05-31T10:00:00.000Z'],
  ];
  for (const [anchor, interval, count, n, expected] of cases) {
    it(`${anchor} + ${n} x ${count} ${interval} = ${expected}`, () => {
      expect(chargeDate(new Date(anchor), interval, count, n).toISOString()).to.equal(expected);
    });
  }
});
