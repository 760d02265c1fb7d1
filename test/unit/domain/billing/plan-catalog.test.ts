import { expect } from 'chai';
import defaultCatalog from '../../../../infrastructure/config/platform-billing-catalog.json';
import { annualFeeCents, findPlan, InvalidPlanCatalog, parsePlanCatalog } from '../../../../domain/billing/plan-catalog';

const valid = {
  version: 3,
  currency: 'BRL',
  plans: [{ code: 'starter', name: 'Starter', monthlyFeeCents: 9900, includedPayments: 500, perPaymentCents: 25 }],
};

describe('plan catalog', () => {
  it('parses the repository default, with the due days defaulted and no invented payment instructions', () => {
    const catalog = parsePlanCatalog(defaultCatalog);
    expect(catalog.version).to.equal(1);
    expect(catalog.paymentInstructions).to.equal(null);
    expect(parsePlanCatalog(valid).invoiceDueDays).to.equal(10);
  });

  it('annual fee is 10 monthly fees', () => {
    const plan = findPlan(parsePlanCatalog(valid), 'starter')!;
    expect(annualFeeCents(plan)).to.equal(99_000);
    expect(findPlan(parsePlanCatalog(valid), 'gold')).to.equal(null);
  });

  const refusals: Array<[string, unknown, RegExp]> = [
    ['not an object', [], /the catalog must be an object/],
    ['version 0', { ...valid, version: 0 }, /^version must be an integer/],
    ['fractional version', { ...valid, version: 1.5 }, /^version/],
    ['lower-case currency', { ...valid, currency: 'brl' }, /^currency/],
    ['no plans', { ...valid, plans: [] }, /plans must be a non-empty array/],
    ['fee in reais (fraction)', { ...valid, plans: [{ ...valid.plans[0], monthlyFeeCents: 99.9 }] }, /plans\[0\]\.monthlyFeeCents/],
    ['negative per-payment price', { ...valid, plans: [{ ...valid.plans[0], perPaymentCents: -1 }] }, /plans\[0\]\.perPaymentCents/],
    ['price as a string', { ...valid, plans: [{ ...valid.plans[0], monthlyFeeCents: '9900' }] }, /monthlyFeeCents/],
    ['bad code', { ...valid, plans: [{ ...valid.plans[0], code: 'A' }] }, /plans\[0\]\.code/],
    ['duplicate code', { ...valid, plans: [valid.plans[0], valid.plans[0]] }, /listed twice/],
    ['instructions without a way to pay', { ...valid, paymentInstructions: { beneficiary: 'Platform Ltda' } }, /at least one way to pay/],
    ['instructions without beneficiary', { ...valid, paymentInstructions: { pixKey: 'x' } }, /beneficiary/],
  ];
  for (const [name, raw, message] of refusals) {
    it(`refuses ${name}, naming the field`, () => {
      expect(() => parsePlanCatalog(raw)).to.throw(InvalidPlanCatalog, message);
    });
  }

  it('keeps the instructions the administration configured, exactly', () => {
    const catalog = parsePlanCatalog({ ...valid, paymentInstructions: { beneficiary: 'Platform Ltda', pixKey: 'billing@platform.example' } });
    expect(catalog.paymentInstructions).to.deep.equal({ beneficiary: 'Platform Ltda', pixKey: 'billing@platform.example' });
  });
});
