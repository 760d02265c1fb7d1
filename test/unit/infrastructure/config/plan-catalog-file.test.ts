import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '../../../../infrastructure/config/config';
import { loadPlanCatalog } from '../../../../infrastructure/config/plan-catalog-file';

describe('plan catalog file (PLATFORM_BILLING_CATALOG)', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(path.join(tmpdir(), 'catalog-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('without a file, the repository default', () => {
    expect(loadPlanCatalog(null).plans.map((p) => p.code)).to.deep.equal(['starter', 'growth', 'scale']);
  });

  it('refuses to start with one sentence naming the file and the field', () => {
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ version: 1, currency: 'BRL', plans: [{ code: 'starter', name: 'S', monthlyFeeCents: 99.9, includedPayments: 1, perPaymentCents: 1 }] }));
    expect(() => loadPlanCatalog(file)).to.throw(ConfigError, `PLATFORM_BILLING_CATALOG (${file}): plans[0].monthlyFeeCents must be an integer`);
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, '{ not json');
    expect(() => loadPlanCatalog(broken)).to.throw(ConfigError, /cannot be read as JSON/);
    expect(() => loadPlanCatalog(path.join(dir, 'missing.json'))).to.throw(ConfigError, /missing\.json\) cannot be read/);
  });
});
