import { expect } from 'chai';
import {
  invoiceBalanceCents,
  invoiceStanding,
  linesTotalCents,
  monthlyInvoiceLines,
  projectedPayments,
  proratedFeeCents,
} from '../../../../domain/billing/invoice-computation';
import { annualPrepaidLines } from '../../../../domain/billing/subscription';

const plan = { code: 'starter', name: 'Starter', monthlyFeeCents: 9900, includedPayments: 500, perPaymentCents: 25 };

describe('invoice computation', () => {
  const cases: Array<{ name: string; interval: 'monthly' | 'annual'; payments: number; activeDays: number; days: number; lines: Array<[number, number]>; total: number }> = [
    { name: 'monthly, whole month, within the included', interval: 'monthly', payments: 120, activeDays: 30, days: 30, lines: [[1, 9900], [120, 0]], total: 9900 },
    { name: 'monthly, above the included', interval: 'monthly', payments: 740, activeDays: 31, days: 31, lines: [[1, 9900], [500, 0], [240, 25]], total: 15_900 },
    { name: 'monthly, first month from day 21 of 30 (10 days)', interval: 'monthly', payments: 0, activeDays: 10, days: 30, lines: [[1, 3300]], total: 3300 },
    { name: 'monthly, prorated fee rounds half up', interval: 'monthly', payments: 0, activeDays: 1, days: 31, lines: [[1, 319]], total: 319 },
    { name: 'annual: the fee was prepaid, only payments above the included', interval: 'annual', payments: 503, activeDays: 30, days: 30, lines: [[500, 0], [3, 25]], total: 75 },
    { name: 'annual within the included: nothing due', interval: 'annual', payments: 10, activeDays: 30, days: 30, lines: [[10, 0]], total: 0 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const lines = monthlyInvoiceLines({ plan, interval: c.interval, livePayments: c.payments, activeDays: c.activeDays, daysInMonth: c.days });
      expect(lines.map((l) => [l.quantity, l.unitAmountCents])).to.deep.equal(c.lines);
      for (const l of lines) expect(l.amountCents).to.equal(l.quantity * l.unitAmountCents);
      expect(linesTotalCents(lines)).to.equal(c.total);
    });
  }

  it('annual prepaid invoice: 10 monthly fees for 12 months', () => {
    const lines = annualPrepaidLines(plan);
    expect(lines.map((l) => [l.quantity, l.unitAmountCents])).to.deep.equal([[10, 9900]]);
    expect(linesTotalCents(lines)).to.equal(99_000);
  });

  const prorations: Array<[number, number, number, number]> = [
    [9900, 30, 30, 9900],
    [9900, 15, 30, 4950],
    [10_000, 1, 3, 3333],
    [10_000, 2, 3, 6667],
    [9900, 0, 31, 0],
  ];
  for (const [fee, active, days, expected] of prorations) {
    it(`prorates ${fee} for ${active} of ${days} days to ${expected}`, () => expect(proratedFeeCents(fee, active, days)).to.equal(expected));
  }

  const balances: Array<[string, number, Array<{ kind: 'receipt' | 'adjustment'; amountCents: number }>, number]> = [
    ['nothing recorded', 15_900, [], 15_900],
    ['paid in full', 15_900, [{ kind: 'receipt', amountCents: 15_900 }], 0],
    ['partly paid', 15_900, [{ kind: 'receipt', amountCents: 10_000 }], 5900],
    ['credit adjustment then the rest paid', 15_900, [{ kind: 'adjustment', amountCents: -900 }, { kind: 'receipt', amountCents: 15_000 }], 0],
    ['overpaid: a credit', 9900, [{ kind: 'receipt', amountCents: 10_000 }], -100],
    ['a charge adjustment', 9900, [{ kind: 'adjustment', amountCents: 500 }], 10_400],
  ];
  for (const [name, total, entries, expected] of balances) {
    it(`balance: ${name}`, () => expect(invoiceBalanceCents(total, entries)).to.equal(expected));
  }

  const due = new Date('2026-04-10T03:00:00Z');
  const standings: Array<[string, number, Date, { status: string; overdue: boolean }]> = [
    ['open before due', 100, new Date('2026-04-09T00:00:00Z'), { status: 'open', overdue: false }],
    ['open past due is overdue', 100, new Date('2026-04-10T03:00:01Z'), { status: 'open', overdue: true }],
    ['paid past due is not overdue', 0, new Date('2026-05-01T00:00:00Z'), { status: 'paid', overdue: false }],
  ];
  for (const [name, balance, now, expected] of standings) {
    it(`standing: ${name}`, () => expect(invoiceStanding(balance, due, now)).to.deep.equal(expected));
  }

  const projections: Array<[number, number, number, number]> = [
    [100, 10, 30, 300],
    [7, 3, 31, 72],
    [0, 15, 30, 0],
    [40, 30, 30, 40],
    [5, 0, 30, 5],
  ];
  for (const [soFar, elapsed, days, expected] of projections) {
    it(`projects ${soFar} payments after ${elapsed} of ${days} days to ${expected}`, () => expect(projectedPayments(soFar, elapsed, days)).to.equal(expected));
  }
});
