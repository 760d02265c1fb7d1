import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { BILLING_CLI_COMMANDS } from '../../../infrastructure/main/cli-billing';
import { ApiClient } from '../../support/api-client';
import { startTestService, type TestService } from '../../support/test-service';
import type { ProductServices } from '../../../infrastructure/main/modules';
import { bearer, registerAndEnroll, registration, signIn, type Enrolled } from '../identity/identity-support';

/**
 * Platform billing through the REST edge on PostgreSQL, on a clock the test moves: the trial's 50 payments (the
 * 50th and 51st together), its day 30, brands sharing it, subscription (monthly; annual before and after
 * settlement), the month's closing at São Paulo's month end (two workers racing), invoices and the operators' CLI.
 */
describe('platform billing (e2e)', function () {
  this.timeout(180_000);
  const DAY = 24 * 60 * 60 * 1000;
  // 12:00 in São Paulo on 1 March; a 30-second boundary + 1 s so TOTP codes of the registration are fresh.
  const t0 = new Date('2026-03-01T15:00:01.000Z');
  const clock = new ManualClock(t0);
  let service: TestService<ProductServices>;
  let api: ApiClient;
  let catalogDir: string;
  const INSTRUCTIONS = { beneficiary: 'Plataforma Pagamentos Ltda', pixKey: 'financeiro@plataforma.example' };

  const card = (scenario = 'approved') => ({ token: `tok_sandbox_${scenario}`, brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030, holderName: 'ANA SILVA' });

  before(async () => {
    catalogDir = mkdtempSync(path.join(tmpdir(), 'billing-catalog-'));
    const catalogFile = path.join(catalogDir, 'catalog.json');
    writeFileSync(
      catalogFile,
      JSON.stringify({
        version: 7,
        currency: 'BRL',
        invoiceDueDays: 10,
        plans: [{ code: 'starter', name: 'Starter', monthlyFeeCents: 9900, includedPayments: 500, perPaymentCents: 25 }],
        paymentInstructions: INSTRUCTIONS,
      }),
    );
    service = await startTestService({
      clock,
      transport: 'in-process',
      // No background workers: the test runs the monthly closing itself, as two racing workers.
      workers: false,
      env: {
        PLATFORM_BILLING_CATALOG: catalogFile,
        RATE_LIMITS: 'auth.register.address=1000/15m,auth.login.address=1000/15m,auth.mfa.verify.address=1000/15m,auth.mfa.verify.account_address=1000/15m',
      },
    });
    api = new ApiClient(service.url);
  });

  after(async () => {
    await service?.stop();
    if (catalogDir) rmSync(catalogDir, { recursive: true, force: true });
  });

  const liveKeyOf = async (organizationId: string) =>
    api.withKey((await service.core.apiKeys.create.execute({ organizationId, environment: 'live', name: 'live' })).secret);
  const sandboxKeyOf = async (organizationId: string) =>
    api.withKey((await service.core.apiKeys.create.execute({ organizationId, environment: 'sandbox', name: 'sandbox' })).secret);
  const connect = async (client: ApiClient, name: string, apiKey = 'sk_test', costBasisPoints = 10) => {
    const r = await client.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name, credentials: { merchantId: `m_${name}`, apiKey }, costBasisPoints });
    expect(r.status, r.text).to.equal(201);
  };
  const pay = (client: ApiClient, scenario = 'approved') => client.post('/v1/payments', { amount: 1000, card: card(scenario) });
  const session = (user: Enrolled | { accessToken: string }) => ({ ...bearer(user.accessToken) });

  // Companies made at t0 (the trial starts when the company does).
  let trialCompany: { organizationId: string; live: ApiClient; sandbox: ApiClient };
  let monthly: Enrolled;
  let annual: Enrolled;
  before(async () => {
    const org = await service.core.organizations.create.execute({ name: 'Trial counting' });
    trialCompany = { organizationId: org.id, live: await liveKeyOf(org.id), sandbox: await sandboxKeyOf(org.id) };
    await connect(trialCompany.live, 'live-main');
    await connect(trialCompany.sandbox, 'sandbox-main');
    monthly = await registerAndEnroll(api, clock);
    annual = await registerAndEnroll(api, clock);
  });

  it('GET /v1/platform-billing/catalog shows the operator\'s catalog: version and prices in cents', async () => {
    const r = await trialCompany.sandbox.get('/v1/platform-billing/catalog');
    expect(r.status, r.text).to.equal(200);
    expect(r.body).to.deep.equal({
      object: 'platform_billing_catalog',
      version: 7,
      currency: 'BRL',
      plans: [{ code: 'starter', name: 'Starter', monthlyFee: 9900, annualFee: 99_000, includedPayments: 500, perPayment: 25 }],
    });
  });

  describe('free production trial', () => {
    it('counts created live payments (declined too, not sandbox), and of payments 50 and 51 arriving together exactly one is created', async () => {
      const access = async (client: ApiClient) => (await client.get('/v1/platform-billing/access')).body;
      expect((await pay(trialCompany.sandbox)).status).to.equal(201);
      for (let i = 1; i <= 49; i++) {
        const r = await pay(trialCompany.live, i % 10 === 0 ? 'insufficient_funds' : 'approved');
        expect(r.status, r.text).to.equal(201);
      }
      // The same answer whatever environment the credential selects.
      const before = await access(trialCompany.sandbox);
      expect(await access(trialCompany.live)).to.deep.equal(before);
      expect(before.trial).to.include({ status: 'active', paymentsUsed: 49, paymentsRemaining: 1, paymentsLimit: 50, daysLimit: 30 });
      expect(before.production).to.deep.equal({ allowed: true, through: 'trial' });

      const [a, b] = await Promise.all([pay(trialCompany.live), pay(trialCompany.live)]);
      expect([a.status, b.status].sort()).to.deep.equal([201, 402]);
      const refused = a.status === 402 ? a : b;
      expect(refused.body.error).to.include({ code: 'production_access_required', param: null });
      expect(refused.body.error.message).to.match(/50 production payments/);

      // Nothing of the refused payment was kept (it never reached an acquirer): 50 live payments exist.
      const listed = await trialCompany.live.get('/v1/payments?limit=100');
      expect(listed.body.data).to.have.length(50);
      const after = await access(trialCompany.sandbox);
      expect(after.trial).to.include({ status: 'ended', endedBy: 'payments', paymentsUsed: 50, paymentsRemaining: 0 });
      expect(after.production).to.deep.equal({ allowed: false, through: null });
      expect((await pay(trialCompany.live, 'insufficient_funds')).status).to.equal(402);
      // Sandbox is never gated.
      expect((await pay(trialCompany.sandbox)).status).to.equal(201);
    });

    it('a payment that fell back to a second acquirer counts once', async () => {
      const org = await service.core.organizations.create.execute({ name: 'Fallback' });
      const live = await liveKeyOf(org.id);
      await connect(live, 'down', 'unreachable', 10);
      await connect(live, 'up', 'sk_test', 20);
      const r = await pay(live);
      expect(r.body.attempts).to.have.length(2);
      expect((await live.get('/v1/platform-billing/access')).body.trial.paymentsUsed).to.equal(1);
    });

    it('a reused company document gets no trial: its first live payment is refused', async () => {
      const reused = await api.post('/v1/auth/register', registration({ document: await companyDocument(monthly.organizationId) }));
      expect(reused.status, reused.text).to.equal(201);
      const live = await liveKeyOf(reused.body.organization.id);
      await connect(live, 'reused');
      const r = await pay(live);
      expect(r.status).to.equal(402);
      expect(r.body.error.code).to.equal('production_access_required');
      expect((await live.get('/v1/platform-billing/access')).body.trial.status).to.equal('not_eligible');
    });

    it('ends on day 30 whatever the count, for the company and its brands alike', async () => {
      const brand = await api.post('/v1/auth/accounts', { name: 'ACME Outlet' }, session(monthly));
      expect(brand.status, brand.text).to.equal(201);
      const companyLive = await liveKeyOf(monthly.organizationId);
      const brandLive = await liveKeyOf(brand.body.id);
      await connect(companyLive, 'company');
      await connect(brandLive, 'brand');

      clock.set(new Date(t0.getTime() + 29 * DAY));
      expect((await pay(companyLive)).status).to.equal(201);
      expect((await pay(brandLive)).status).to.equal(201);
      const shared = (await brandLive.get('/v1/platform-billing/access')).body;
      expect(shared).to.include({ companyId: monthly.organizationId });
      expect(shared.trial).to.include({ status: 'active', paymentsUsed: 2 });

      clock.set(new Date(t0.getTime() + 30 * DAY));
      const late = await pay(companyLive);
      expect(late.status).to.equal(402);
      expect(late.body.error.message).to.match(/30 days/);
      expect((await pay(brandLive)).status).to.equal(402);
      expect((await companyLive.get('/v1/platform-billing/access')).body.trial).to.include({ status: 'ended', endedBy: 'days', paymentsUsed: 2 });
    });
  });

  async function companyDocument(organizationId: string): Promise<string> {
    const rows = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ document: string }>>(
      'select document from identity_organization_profiles where organization_id = ?',
      [organizationId],
    );
    return rows[0]!.document;
  }

  describe('subscription, invoices and the monthly closing', () => {
    let monthlyInvoiceId: string;
    // Reads with API keys from here on: billing:read is a scope of every key, and dashboard sessions expire as the clock moves.
    const readerOf = async (user: Enrolled) => liveKeyOf(user.organizationId);

    it('subscribe: owner session only, terms accepted, the catalog version in force (409 otherwise)', async () => {
      // Day 30 (31 March, 12:00 in São Paulo): the trial is over; sessions of day 0 have expired, so sign in again.
      Object.assign(monthly, await signIn(api, clock, monthly));
      const body = { planCode: 'starter', billingInterval: 'monthly', planVersion: 7, acceptedTerms: true };
      const withKey = await (await liveKeyOf(monthly.organizationId)).post('/v1/platform-billing/subscribe', body);
      expect(withKey.status).to.equal(403);
      const stale = await api.post('/v1/platform-billing/subscribe', { ...body, planVersion: 6 }, session(monthly));
      expect(stale.status).to.equal(409);
      expect(stale.body.error).to.include({ code: 'catalog_version_mismatch', param: 'body.planVersion' });
      const noTerms = await api.post('/v1/platform-billing/subscribe', { ...body, acceptedTerms: false }, session(monthly));
      expect(noTerms.status).to.equal(422);
      const unknown = await api.post('/v1/platform-billing/subscribe', { ...body, planCode: 'gold' }, session(monthly));
      expect(unknown.status).to.equal(422);
      expect(unknown.body.error.param).to.equal('body.planCode');
      expect((await api.get('/v1/platform-billing/access', session(monthly))).body.plan).to.equal(null);

      const created = await api.post('/v1/platform-billing/subscribe', body, session(monthly));
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.include({ object: 'platform_subscription', billingInterval: 'monthly', status: 'active', planVersion: 7, invoice: null });
      expect((await api.post('/v1/platform-billing/subscribe', body, session(monthly))).status).to.equal(409);

      // Monthly is post-paid: production opens at once.
      const live = await liveKeyOf(monthly.organizationId);
      expect((await pay(live)).status).to.equal(201);
      expect((await live.get('/v1/platform-billing/access')).body.production).to.deep.equal({ allowed: true, through: 'plan' });
    });

    it('overview: the month\'s usage with computed lines and partial invoice, the next invoice', async () => {
      const overview = (await api.get('/v1/platform-billing/overview', session(monthly))).body;
      expect(overview.plan.plan.code).to.equal('starter');
      // 2 trial payments (free) and 1 under the plan; the fee prorated to 1 of March's 31 days: round(9900 / 31) = 319.
      expect(overview.currentMonth).to.deep.include({ month: '2026-03', productionPayments: 3, billedPayments: 1, partialInvoice: { total: 319 } });
      expect(overview.currentMonth.lines).to.deep.equal([
        { description: 'Starter plan, monthly fee (1 of 31 days)', quantity: 1, unitAmount: 319, amount: 319 },
        { description: 'Production payments included in the plan', quantity: 1, unitAmount: 0, amount: 0 },
      ]);
      expect(overview.nextInvoice).to.deep.include({ month: '2026-03', issuesAt: '2026-04-01T03:00:00.000Z', estimatedTotal: 319 });
      expect(overview.sandboxUsage).to.deep.include({ billed: false });
    });

    it('annual plan: prepaid invoice of 10 monthly fees; live payments only after settlement (CLI)', async () => {
      Object.assign(annual, await signIn(api, clock, annual));
      const live = await liveKeyOf(annual.organizationId);
      await connect(live, 'annual');
      const created = await api.post('/v1/platform-billing/subscribe', { planCode: 'starter', billingInterval: 'annual', acceptedTerms: true }, session(annual));
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.include({ billingInterval: 'annual', status: 'awaiting_settlement', productionReleasedAt: null });
      const invoice = created.body.invoice;
      expect(invoice).to.include({ kind: 'annual_prepaid', total: 99_000, balance: 99_000, status: 'open' });
      expect(invoice.lines).to.deep.equal([{ description: 'Starter plan, annual (12 months for 10 monthly fees)', quantity: 10, unitAmount: 9900, amount: 99_000 }]);
      expect(invoice.paymentInstructions).to.deep.equal(INSTRUCTIONS);

      const before = await pay(live);
      expect(before.status).to.equal(402);
      expect(before.body.error.message).to.match(/prepaid invoice is settled/);

      await BILLING_CLI_COMMANDS['billing settle']!(service.core, { invoice: invoice.id, amount: '50000' });
      expect((await pay(live)).status).to.equal(402);
      const settled = JSON.parse(await BILLING_CLI_COMMANDS['billing settle']!(service.core, { invoice: invoice.id, amount: '49000', note: 'TED 1234' }));
      expect(settled).to.include({ status: 'paid', balance: 0, paymentInstructions: null });
      expect(settled.receipts.map((r: { amount: number }) => r.amount)).to.deep.equal([50_000, 49_000]);

      expect((await pay(live)).status).to.equal(201);
      const access = (await live.get('/v1/platform-billing/access')).body;
      expect(access.production).to.deep.equal({ allowed: true, through: 'plan' });
      expect(access.plan).to.include({ status: 'active' });
    });

    it('closes March once at São Paulo\'s month end, however many workers race', async () => {
      // 23:59 on 31 March in São Paulo (02:59 UTC on 1 April): March is still open.
      clock.set(new Date('2026-04-01T02:59:00.000Z'));
      expect((await service.services.billingClosing.close('2026-03')).closed).to.equal(false);
      const reader = await readerOf(monthly);
      expect((await reader.get('/v1/platform-billing/invoices')).body.data).to.deep.equal([]);

      clock.set(new Date('2026-04-01T03:00:01.000Z'));
      const [first, second] = await Promise.all([service.services.billingClosing.run(), service.services.billingClosing.run()]);
      expect([first.month, second.month]).to.deep.equal(['2026-03', '2026-03']);
      expect([first.closed, second.closed].sort()).to.deep.equal([false, true]);

      const invoices = (await reader.get('/v1/platform-billing/invoices')).body.data;
      expect(invoices).to.have.length(1);
      monthlyInvoiceId = invoices[0].id;
      expect(invoices[0]).to.deep.include({ kind: 'monthly', month: '2026-03', total: 319, balance: 319, status: 'open', overdue: false, dueAt: '2026-04-11T03:00:00.000Z' });
      expect(invoices[0].lines.map((l: { quantity: number; unitAmount: number }) => [l.quantity, l.unitAmount])).to.deep.equal([[1, 319], [1, 0]]);
      // The annual plan stayed within its included payments: its month has nothing to invoice, only its prepayment.
      const annualInvoices = (await (await readerOf(annual)).get('/v1/platform-billing/invoices')).body.data;
      expect(annualInvoices.map((i: { kind: string }) => i.kind)).to.deep.equal(['annual_prepaid']);
    });

    it('invoice: payment instructions while due, overdue filter, receipts and adjustments with the balance (CLI)', async () => {
      const reader = await readerOf(monthly);
      const read = async () => (await reader.get(`/v1/platform-billing/invoices/${monthlyInvoiceId}`)).body;
      expect((await read()).paymentInstructions).to.deep.equal(INSTRUCTIONS);
      const filter = async (status: string) =>
        (await reader.get(`/v1/platform-billing/invoices?status=${status}`)).body.data.map((i: { id: string }) => i.id);
      expect(await filter('overdue')).to.deep.equal([]);
      clock.set(new Date('2026-04-12T12:00:00.000Z'));
      expect(await filter('overdue')).to.deep.equal([monthlyInvoiceId]);
      expect(await filter('open')).to.deep.equal([monthlyInvoiceId]);
      expect(await filter('paid')).to.deep.equal([]);
      expect((await reader.get('/v1/platform-billing/invoices?status=late')).status).to.equal(422);

      await BILLING_CLI_COMMANDS['billing adjust']!(service.core, { invoice: monthlyInvoiceId, amount: '-19', note: 'goodwill credit' });
      expect(await read()).to.include({ balance: 300, status: 'open' });
      await BILLING_CLI_COMMANDS['billing settle']!(service.core, { invoice: monthlyInvoiceId, amount: '300' });
      const paid = await read();
      expect(paid).to.include({ status: 'paid', overdue: false, balance: 0, total: 319, paymentInstructions: null });
      expect(paid.adjustments.map((a: { amount: number; note: string }) => [a.amount, a.note])).to.deep.equal([[-19, 'goodwill credit']]);
      expect(paid.receipts.map((r: { amount: number }) => r.amount)).to.deep.equal([300]);
      expect(await filter('overdue')).to.deep.equal([]);
      expect(await filter('paid')).to.deep.equal([monthlyInvoiceId]);
      const other = await (await readerOf(annual)).get(`/v1/platform-billing/invoices/${monthlyInvoiceId}`);
      expect(other.status).to.equal(404);
    });

    it('overview in April: the previous month, sandbox usage as information, the history', async () => {
      const sandbox = await sandboxKeyOf(monthly.organizationId);
      await connect(sandbox, 'sandbox');
      expect((await pay(sandbox)).status).to.equal(201);
      const overview = (await sandbox.get('/v1/platform-billing/overview')).body;
      expect(overview.currentMonth).to.deep.include({ month: '2026-04', productionPayments: 0, billedPayments: 0 });
      expect(overview.previousMonth).to.deep.include({ month: '2026-03', productionPayments: 3, invoiceId: monthlyInvoiceId, total: 319 });
      expect(overview.sandboxUsage).to.deep.equal({ month: '2026-04', payments: 1, billed: false });
      expect(overview.history.map((h: { id: string; status: string }) => [h.id, h.status])).to.deep.equal([[monthlyInvoiceId, 'paid']]);
    });
  });
});
