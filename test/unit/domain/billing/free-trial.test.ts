import { expect } from 'chai';
import { trialState } from '../../../../domain/billing/free-trial';
import { productionAccess } from '../../../../domain/billing/production-access';
import type { Subscription } from '../../../../domain/billing/subscription';

const DAY = 24 * 60 * 60 * 1000;
const start = new Date('2026-03-01T12:00:00Z');
const at = (days: number) => new Date(start.getTime() + days * DAY);

describe('free production trial: 30 days or 50 payments, first to end', () => {
  const cases: Array<{ name: string; eligible: boolean; used: number; now: Date; status: string; endedBy: string | null; remaining: number }> = [
    { name: 'new company', eligible: true, used: 0, now: at(0), status: 'active', endedBy: null, remaining: 50 },
    { name: '49 payments on day 29', eligible: true, used: 49, now: at(29.99), status: 'active', endedBy: null, remaining: 1 },
    { name: '50 payments on day 3', eligible: true, used: 50, now: at(3), status: 'ended', endedBy: 'payments', remaining: 0 },
    { name: 'day 30 with 10 payments', eligible: true, used: 10, now: at(30), status: 'ended', endedBy: 'days', remaining: 40 },
    { name: 'a second before day 30', eligible: true, used: 10, now: new Date(at(30).getTime() - 1000), status: 'active', endedBy: null, remaining: 40 },
    { name: 'reused document or e-mail', eligible: false, used: 0, now: at(0), status: 'not_eligible', endedBy: null, remaining: 0 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const state = trialState({ eligible: c.eligible, startedAt: start, paymentsUsed: c.used }, c.now);
      expect({ status: state.status, endedBy: state.endedBy, remaining: state.paymentsRemaining }).to.deep.equal({ status: c.status, endedBy: c.endedBy, remaining: c.remaining });
      expect(state.endsAt.toISOString()).to.equal(at(30).toISOString());
    });
  }
});

describe('production access', () => {
  const plan = { code: 'starter', name: 'Starter', monthlyFeeCents: 9900, includedPayments: 500, perPaymentCents: 25 };
  const subscription = (released: boolean): Subscription => ({
    companyId: 'org_1', plan, catalogVersion: 1, interval: released ? 'monthly' : 'annual', acceptedBy: 'usr_1', startedAt: start,
    paidThrough: null, productionReleasedAt: released ? start : null, prepaidInvoiceId: null,
  });
  const ended = { eligible: true, startedAt: start, paymentsUsed: 50 };
  const active = { eligible: true, startedAt: start, paymentsUsed: 3 };
  const cases: Array<[string, typeof ended, Subscription | null, boolean, string | null]> = [
    ['trial active, no plan', active, null, true, 'trial'],
    ['trial ended, no plan', ended, null, false, null],
    ['trial ended, monthly plan', ended, subscription(true), true, 'plan'],
    ['trial ended, annual plan before settlement', ended, subscription(false), false, null],
    ['trial active, annual plan before settlement: the trial still serves', active, subscription(false), true, 'trial'],
    ['trial active and a plan: the plan, so the trial is not consumed', active, subscription(true), true, 'plan'],
  ];
  for (const [name, allowance, sub, allowed, through] of cases) {
    it(name, () => {
      const access = productionAccess(allowance, sub, at(1));
      expect({ allowed: access.allowed, through: access.through }).to.deep.equal({ allowed, through });
    });
  }
});
