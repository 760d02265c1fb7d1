import { expect } from 'chai';
import { billingMonthOf, daysElapsed, daysFrom, daysInMonth, monthBounds, nextMonth, previousMonth } from '../../../../domain/billing/billing-month';

const SP = 'America/Sao_Paulo';

describe('billing months in the platform time zone', () => {
  const months: Array<[string, string, string]> = [
    // São Paulo is UTC-3: 02:59 UTC on the 1st is still the previous month there.
    ['2026-04-01T02:59:59Z', SP, '2026-03'],
    ['2026-04-01T03:00:00Z', SP, '2026-04'],
    ['2026-04-01T02:59:59Z', 'UTC', '2026-04'],
    ['2027-01-01T02:00:00Z', SP, '2026-12'],
  ];
  for (const [instant, zone, month] of months) {
    it(`${instant} is ${month} in ${zone}`, () => expect(billingMonthOf(new Date(instant), zone)).to.equal(month));
  }

  it('bounds are local midnights', () => {
    const { start, end } = monthBounds('2026-03', SP);
    expect(start.toISOString()).to.equal('2026-03-01T03:00:00.000Z');
    expect(end.toISOString()).to.equal('2026-04-01T03:00:00.000Z');
    expect(monthBounds('2026-12', 'UTC').end.toISOString()).to.equal('2027-01-01T00:00:00.000Z');
  });

  const days: Array<[string, number]> = [['2026-02', 28], ['2028-02', 29], ['2026-04', 30], ['2026-12', 31]];
  for (const [month, n] of days) it(`${month} has ${n} days`, () => expect(daysInMonth(month)).to.equal(n));

  it('next and previous months across years', () => {
    expect(nextMonth('2026-12')).to.equal('2027-01');
    expect(previousMonth('2027-01')).to.equal('2026-12');
    expect(previousMonth('2026-10')).to.equal('2026-09');
  });

  it('days counted in local days', () => {
    expect(daysFrom('2026-04', new Date('2026-04-21T15:00:00Z'), SP)).to.equal(10);
    expect(daysFrom('2026-04', new Date('2026-03-15T00:00:00Z'), SP)).to.equal(30);
    // 01:00 UTC on the 22nd is still the 21st in São Paulo.
    expect(daysFrom('2026-04', new Date('2026-04-22T01:00:00Z'), SP)).to.equal(10);
    expect(daysElapsed('2026-04', new Date('2026-04-10T12:00:00Z'), SP)).to.equal(10);
    expect(daysElapsed('2026-04', new Date('2026-05-10T12:00:00Z'), SP)).to.equal(30);
  });
});
