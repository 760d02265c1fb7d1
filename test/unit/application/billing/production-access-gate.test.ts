import { expect } from 'chai';
import { ProductionAccessGate } from '../../../../application/billing/production-access-gate';
import { SubscribeToPlan } from '../../../../application/billing/subscribe-to-plan';
import { RecordInvoiceEntry } from '../../../../application/billing/record-invoice-entry';
import type { Transaction } from '../../../../domain/ports/transactor';
import { billingFakes } from '../../../support/billing-fakes';

const DAY = 24 * 60 * 60 * 1000;
const TX = {} as Transaction;

describe('ProductionAccessGate (payments\' ProductionUsage)', () => {
  const setup = (eligible = true) => {
    const fakes = billingFakes();
    fakes.billing.company('org_co', fakes.clock.now(), eligible);
    fakes.billing.brand('org_brand', 'org_co');
    const gate = new ProductionAccessGate(fakes.billing);
    const count = (org: string, id: string, at = fakes.clock.now()) => fakes.billing.run((tx) => gate.countLivePayment(tx, org, id, at));
    return { ...fakes, gate, count };
  };

  it('takes the trial per company: brands share it, and the 51st payment is refused with nothing recorded', async () => {
    const { billing, count } = setup();
    for (let i = 1; i <= 50; i++) await count(i % 2 ? 'org_co' : 'org_brand', `pay_${i}`);
    await expect(count('org_brand', 'pay_51')).to.be.rejectedWith('50 production payments').and.eventually.have.property('code', 'production_access_required');
    expect(billing.state.live).to.have.length(50);
    expect(billing.state.allowances.org_co!.paymentsUsed).to.equal(50);
  });

  it('reads no running total while counting: the merchant\'s window of payments is not read on every payment', async () => {
    const { billing, count } = setup();
    let totalsRead = 0;
    const livePayments = billing.livePayments.bind(billing);
    billing.livePayments = async (...args) => {
      totalsRead += 1;
      return livePayments(...args);
    };
    await count('org_co', 'pay_1');
    await count('org_brand', 'pay_2');
    expect(billing.state.live).to.have.length(2);
    expect(totalsRead).to.equal(0);
  });

  it('counts a payment once, whatever its attempts (the same payment id again is not a new count)', async () => {
    const { billing, count } = setup();
    await count('org_co', 'pay_1');
    await count('org_co', 'pay_1');
    expect(billing.state.allowances.org_co!.paymentsUsed).to.equal(1);
  });

  it('refuses on day 30, and a company without a trial from its first live payment', async () => {
    const { count, clock } = setup();
    await count('org_co', 'pay_1', new Date(clock.now().getTime() + 30 * DAY - 1));
    await expect(count('org_co', 'pay_2', new Date(clock.now().getTime() + 30 * DAY))).to.be.rejectedWith('30 days');
    const reused = setup(false);
    await expect(reused.count('org_co', 'pay_1')).to.be.rejectedWith('already had its free trial');
  });

  it('an annual plan opens production only once its prepaid invoice is settled in full', async () => {
    const { deps, billing, count, clock } = setup();
    clock.advance(31 * DAY);
    const subscribed = await new SubscribeToPlan(deps).execute({ organizationId: 'org_brand', userId: 'usr_1', role: 'owner', planCode: 'starter', billingInterval: 'annual', acceptedTerms: true });
    expect(subscribed.invoice!.total).to.equal(99_000);
    await expect(count('org_co', 'pay_1')).to.be.rejectedWith('prepaid invoice is settled');
    const entries = new RecordInvoiceEntry(deps);
    await entries.execute({ invoiceId: subscribed.invoice!.id, kind: 'receipt', amountCents: 98_999, note: '' });
    await expect(count('org_co', 'pay_1')).to.be.rejectedWith('prepaid invoice is settled');
    await entries.execute({ invoiceId: subscribed.invoice!.id, kind: 'receipt', amountCents: 1, note: '' });
    await count('org_co', 'pay_1');
    expect(billing.state.allowances.org_co!.paymentsUsed).to.equal(0);
  });
});

describe('SubscribeToPlan', () => {
  const setup = () => {
    const fakes = billingFakes();
    fakes.billing.company('org_co', fakes.clock.now());
    return { ...fakes, subscribe: new SubscribeToPlan(fakes.deps) };
  };
  const command = { organizationId: 'org_co', userId: 'usr_1', role: 'owner', planCode: 'starter', billingInterval: 'monthly' as const, planVersion: 4, acceptedTerms: true };

  const refusals: Array<[string, Partial<typeof command>, string]> = [
    ['an administrator', { role: 'administrator' }, 'forbidden'],
    ['a stale catalog version', { planVersion: 3 }, 'catalog_version_mismatch'],
    ['an unknown plan', { planCode: 'gold' }, 'validation_failed'],
    ['terms not accepted', { acceptedTerms: false }, 'validation_failed'],
  ];
  for (const [name, change, code] of refusals) {
    it(`refuses ${name} (${code}) and changes nothing`, async () => {
      const { subscribe, billing } = setup();
      await expect(subscribe.execute({ ...command, ...change })).to.be.rejected.and.eventually.have.property('code', code);
      expect(billing.state.subscriptions).to.deep.equal({});
      expect(billing.state.invoices).to.deep.equal([]);
    });
  }

  it('monthly opens production at once with no invoice; a second subscription is refused', async () => {
    const { subscribe, billing } = setup();
    const created = await subscribe.execute(command);
    expect(created).to.include({ status: 'active', billingInterval: 'monthly', invoice: null });
    expect(billing.state.invoices).to.deep.equal([]);
    await expect(subscribe.execute(command)).to.be.rejected.and.eventually.have.property('code', 'already_subscribed');
  });

  it('RecordInvoiceEntry refuses a zero adjustment, a negative receipt and an unknown invoice', async () => {
    const { deps } = setup();
    const entries = new RecordInvoiceEntry(deps);
    await expect(entries.execute({ invoiceId: 'inv_x', kind: 'adjustment', amountCents: 0, note: 'x' })).to.be.rejected.and.eventually.have.property('code', 'validation_failed');
    await expect(entries.execute({ invoiceId: 'inv_x', kind: 'receipt', amountCents: -5, note: 'x' })).to.be.rejected.and.eventually.have.property('code', 'validation_failed');
    await expect(entries.execute({ invoiceId: 'inv_x', kind: 'receipt', amountCents: 5, note: 'x' })).to.be.rejected.and.eventually.have.property('code', 'not_found');
  });
});
