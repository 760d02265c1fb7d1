import { expect } from 'chai';
import { CloseBillingMonth } from '../../../../application/billing/close-billing-month';
import { SubscribeToPlan } from '../../../../application/billing/subscribe-to-plan';
import { ProductionAccessGate } from '../../../../application/billing/production-access-gate';
import { billingFakes } from '../../../support/billing-fakes';

describe('CloseBillingMonth', () => {
  it('closes a month only after its end in the platform zone, once, with the computed lines', async () => {
    const { deps, billing, clock } = billingFakes(new Date('2026-03-21T15:00:00Z'));
    billing.company('org_co', new Date('2026-01-01T00:00:00Z'));
    await new SubscribeToPlan(deps).execute({ organizationId: 'org_co', userId: 'usr_1', role: 'owner', planCode: 'starter', billingInterval: 'monthly', acceptedTerms: true });
    const gate = new ProductionAccessGate(billing);
    for (let i = 0; i < 5; i++) await billing.run((tx) => gate.countLivePayment(tx, 'org_co', `pay_${i}`, clock.now()));

    const closing = new CloseBillingMonth(deps);
    clock.set(new Date('2026-04-01T02:59:59Z'));
    expect(await closing.close('2026-03')).to.deep.equal({ month: '2026-03', closed: false, invoices: 0 });
    clock.set(new Date('2026-04-01T03:00:00Z'));
    expect(await closing.run()).to.deep.equal({ month: '2026-03', closed: true, invoices: 1 });
    expect(await closing.run()).to.deep.equal({ month: '2026-03', closed: false, invoices: 0 });

    const [invoice] = billing.state.invoices;
    // 21 to 31 March: 11 of 31 days; 5 payments, 2 included, 3 above at 25.
    expect(invoice!.lines.map((l) => [l.quantity, l.unitAmountCents])).to.deep.equal([[1, 3513], [2, 0], [3, 25]]);
    expect(invoice!.totalCents).to.equal(3513 + 75);
    expect(invoice!.dueAt.toISOString()).to.equal('2026-04-11T03:00:00.000Z');
  });
});
