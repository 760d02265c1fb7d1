import { expect } from 'chai';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import type { ApiClient } from '../../support/api-client';
import { IDENTITY_MODULE } from '../../../infrastructure/main/identity.module';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { paymentsModule } from '../../../infrastructure/main/payments.module';
import { moduleList } from '../../../infrastructure/main/module';
import { NO_FLOWS_MODULE } from '../../support/no-flows-module';

/**
 * What the reads (GET /v1/payments, /v1/payments/summary, /v1/customers) refuse and how they count, through the
 * REST edge: query values the schema lets through but nothing can answer, the bounds of a summary, one currency at
 * a time, one approval rate, and cursors of the caller's environment only. docs/payments.md, Reads.
 */
describe('payment reads: refused queries, summary bounds, currency, approval rate, cursors', function () {
  this.timeout(60_000);
  let service: TestService;
  let merchant: Merchant;

  const pay = (client: ApiClient, amount: number, scenario = 'approved', extra: Record<string, unknown> = {}) =>
    client.post('/v1/payments', { amount, card: { token: `tok_sandbox_${scenario}`, brand: 'visa', last4: '1111' }, ...extra });

  const withAccount = async (name: string): Promise<Merchant> => {
    const m = await service.merchant(name);
    const r = await m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm_main', apiKey: 'sk_test' }, costBasisPoints: 100 });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return m;
  };

  /** A 422 validation_failed naming `param`, in the contract's error shape (contract.md 3). */
  const expectRefused = async (client: ApiClient, path: string, param: string) => {
    const r = await client.get(path);
    expect(r.status, `${path}: ${JSON.stringify(r.body).slice(0, 500)}`).to.equal(422);
    expect(r.body.error, path).to.include({ code: 'validation_failed', param });
    expect(r.body.error.message).to.be.a('string').and.not.empty;
    expect(r.body.error.details).to.be.an('array');
    expect(r.body.error.requestId).to.match(/^req_/);
    return r.body.error as { message: string };
  };
  const expectEachRefused = async (table: Array<[path: string, param: string]>) => {
    for (const [path, param] of table) await expectRefused(merchant.sandbox, path, param);
  };

  before(async () => {
    service = await startTestServiceWith(moduleList().with(IDENTITY_MODULE).with(NO_FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule()), { transport: 'in-process' });
    merchant = await withAccount('Reads edge');
  });
  after(async () => {
    await service?.stop();
  });

  describe('dates the schema accepts but no store holds', () => {
    // A leap second passes ajv's date-time format but is an Invalid Date in JavaScript; year 0, or year 10000
    // once the offset is applied, parse but PostgreSQL refuses them. Each was a 500.
    const unrepresentable = ['2026-11-26T23:59:60Z', '0000-01-01T00:00:00Z', '0001-01-01T00:30:00+01:00', '9999-12-31T23:59:59-05:00'];

    for (const value of unrepresentable) {
      it(`list: createdAfter / createdBefore ${value} is 422`, async () => {
        await expectRefused(merchant.sandbox, `/v1/payments?createdAfter=${encodeURIComponent(value)}`, 'query.createdAfter');
        await expectRefused(merchant.sandbox, `/v1/payments?createdBefore=${encodeURIComponent(value)}`, 'query.createdBefore');
      });
    }

    it('summary: a leap second in from or to is 422 naming it', async () => {
      await expectEachRefused([
        ['/v1/payments/summary?from=2026-11-26T23:59:60Z', 'query.from'],
        ['/v1/payments/summary?from=2026-11-26T00:00:00Z&to=2026-11-26T23:59:60Z', 'query.to'],
        ['/v1/payments/summary?to=0000-06-01T00:00:00Z', 'query.to'],
      ]);
    });

    it('summary: a previous period that would start before year 1 is 422, the earliest and latest storable periods answer', async () => {
      await expectEachRefused([
        ['/v1/payments/summary?from=0001-01-01T00:00:00Z', 'query.from'],
        ['/v1/payments/summary?from=1000-01-01T00:00:00Z', 'query.from'],
        ['/v1/payments/summary?from=2026-11-24T00:00:00Z&to=9999-12-31T00:00:00Z', 'query.from'],
        ['/v1/payments/summary?from=0001-01-01T00:00:00Z&to=0001-01-02T00:00:00Z', 'query.from'],
      ]);
      // Only to: the default 30 days before it would themselves be preceded by a period before year 1.
      await expectRefused(merchant.sandbox, '/v1/payments/summary?to=0001-02-15T00:00:00Z', 'query.to');
      const earliest = await merchant.sandbox.get('/v1/payments/summary?from=0001-01-02T00:00:00Z&to=0001-01-03T00:00:00Z');
      expect(earliest.status, JSON.stringify(earliest.body)).to.equal(200);
      expect(earliest.body.previousPeriod).to.deep.equal({ from: '0001-01-01T00:00:00.000Z', to: '0001-01-02T00:00:00.000Z' });
      const latest = await merchant.sandbox.get('/v1/payments/summary?from=9999-12-30T00:00:00Z&to=9999-12-31T23:59:59.999Z');
      expect(latest.status, JSON.stringify(latest.body)).to.equal(200);
      expect(latest.body.series.points).to.have.length(48);
    });
  });

  describe('summary period', () => {
    it('refuses a period longer than 366 days (it answered megabytes of daily buckets) and from not before to', async () => {
      const started = Date.now();
      const error = await expectRefused(merchant.sandbox, '/v1/payments/summary?from=1900-01-01T00:00:00Z', 'query.from');
      expect(error.message).to.include('366 days');
      expect(Date.now() - started).to.be.below(2_000);
      await expectEachRefused([
        ['/v1/payments/summary?from=2025-01-01T00:00:00Z&to=2026-01-02T00:00:00.001Z', 'query.from'],
        ['/v1/payments/summary?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'query.from'],
        ['/v1/payments/summary?from=2026-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'query.from'],
      ]);
    });

    it('a period of exactly 366 days answers one daily bucket per day', async () => {
      const r = await merchant.sandbox.get('/v1/payments/summary?from=2024-01-01T00:00:00Z&to=2025-01-01T00:00:00Z');
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body.series.granularity).to.equal('day');
      expect(r.body.series.points).to.have.length(366);
    });
  });

  describe('list filters with a known set of values', () => {
    it('an unknown status, method type or decline reason is 422 naming the filter, not an empty list', async () => {
      await expectEachRefused([
        ['/v1/payments?status=bogus', 'query.status'],
        ['/v1/payments?status=FAILED', 'query.status'],
        ['/v1/payments?status=captured,bogus', 'query.status'],
        ['/v1/payments?methodType=crypto', 'query.methodType'],
        ['/v1/payments?methodType=card,CARD', 'query.methodType'],
        ['/v1/payments?declineReason=NOT_A_REASON', 'query.declineReason'],
        ['/v1/payments?declineReason=insufficient_funds', 'query.declineReason'],
      ]);
    });

    it('known values still filter: every status and method type, a decline reason, the unmapped fallback, any brand', async () => {
      const declined = (await pay(merchant.sandbox, 1_500, 'insufficient_funds')).body.id;
      const ids = async (query: string) => {
        const r = await merchant.sandbox.get(`/v1/payments?${query}`);
        expect(r.status, `${query}: ${JSON.stringify(r.body)}`).to.equal(200);
        return r.body.data.map((p: { id: string }) => p.id);
      };
      expect(await ids('status=requires_payment_method,requires_action,processing,authorized,captured,failed,canceled,voided')).to.include(declined);
      expect(await ids('methodType=card, debit_card,pix,boleto')).to.include(declined);
      expect(await ids('declineReason=INSUFFICIENT_FUNDS')).to.deep.equal([declined]);
      expect(await ids('declineReason=UNMAPPED_DECLINE')).to.deep.equal([]);
      expect(await ids('brand=VISA,some-new-brand')).to.include(declined);
    });
  });

  describe('summary currency', () => {
    it('counts one currency at a time (BRL by default) in every figure, the previous period, the series and per account', async () => {
      const m = await withAccount('Two currencies');
      for (const [amount, currency] of [[1_000, 'BRL'], [2_000, 'BRL'], [50_000, 'USD']] as const) {
        const r = await pay(m.sandbox, amount, 'approved', { currency });
        expect(r.body, JSON.stringify(r.body)).to.include({ status: 'captured', currency });
      }
      const to = new Date(Date.now() + 60_000);
      const period = (from: Date, until: Date) => `from=${from.toISOString()}&to=${until.toISOString()}`;
      const day = period(new Date(to.getTime() - 24 * 3600 * 1000), to);
      const summary = async (query: string) => {
        const r = await m.sandbox.get(`/v1/payments/summary?${query}`);
        expect(r.status, JSON.stringify(r.body)).to.equal(200);
        return r.body;
      };
      const sum = (points: Array<{ total: number; capturedVolume: number }>) => points.reduce((n, p) => ({ total: n.total + p.total, capturedVolume: n.capturedVolume + p.capturedVolume }), { total: 0, capturedVolume: 0 });

      const brl = await summary(day);
      expect(brl).to.include({ currency: 'BRL', total: 2, approved: 2, capturedVolume: 3_000, averageTicket: 1_500 });
      expect(sum(brl.series.points)).to.deep.equal({ total: 2, capturedVolume: 3_000 });
      expect(brl.connectorAccounts).to.have.length(1);
      expect(brl.connectorAccounts[0]).to.include({ attempts: 2, approved: 2, capturedVolume: 3_000 });

      const usd = await summary(`${day}&currency=USD`);
      expect(usd).to.include({ currency: 'USD', total: 1, approved: 1, capturedVolume: 50_000, averageTicket: 50_000 });
      expect(sum(usd.series.points)).to.deep.equal({ total: 1, capturedVolume: 50_000 });
      expect(usd.connectorAccounts[0]).to.include({ attempts: 1, approved: 1, capturedVolume: 50_000 });

      // A window after the payments: they are all in its previous period, still one currency at a time.
      const later = new Date(Date.now() + 1_000);
      const next = period(later, new Date(later.getTime() + 2 * 3600 * 1000));
      expect((await summary(next)).previous).to.include({ total: 2, capturedVolume: 3_000 });
      expect((await summary(`${next}&currency=USD`)).previous).to.include({ total: 1, capturedVolume: 50_000 });
      expect(await summary(`${day}&currency=EUR`)).to.include({ currency: 'EUR', total: 0, capturedVolume: 0 });
      await expectRefused(m.sandbox, `/v1/payments/summary?${day}&currency=XYZ`, 'query.currency');
    });
  });

  describe('approval rate', () => {
    it('one definition at the top and per account: approved / (approved + declined), technical failures in neither', async () => {
      const m = await withAccount('Approval rate');
      for (let i = 0; i < 6; i++) expect((await pay(m.sandbox, 1_000)).body.status).to.equal('captured');
      for (let i = 0; i < 4; i++) expect((await pay(m.sandbox, 1_000, 'insufficient_funds')).body.decline.reason).to.equal('INSUFFICIENT_FUNDS');
      const technical = await pay(m.sandbox, 1_000, 'processing_error');
      expect(technical.body).to.include({ status: 'failed', decline: null });

      const s = (await m.sandbox.get('/v1/payments/summary')).body;
      expect(s).to.include({ total: 11, approved: 6, declined: 4, failed: 5, approvalRateBps: 6_000 });
      expect(s.connectorAccounts).to.have.length(1);
      expect(s.connectorAccounts[0]).to.include({ attempts: 11, approved: 6, declined: 4, technicalFailures: 1, approvalRateBps: 6_000 });
      // Each bucket of the series by the same definition (the payments may straddle midnight, so per bucket).
      for (const point of s.series.points as Array<{ approved: number; declined: number; approvalRateBps: number }>) {
        const decided = point.approved + point.declined;
        expect(point.approvalRateBps).to.equal(decided ? Math.floor((point.approved * 10_000) / decided) : 0);
      }
    });
  });

  describe('cursors', () => {
    it('startingAfter must be a payment of the caller\'s environment; the refusal does not tell whether it exists elsewhere', async () => {
      const own = (await pay(merchant.sandbox, 700)).body.id;
      const live = await merchant.live.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'live', credentials: { merchantId: 'm_live', apiKey: 'sk_live' }, costBasisPoints: 100 });
      expect(live.status, JSON.stringify(live.body)).to.equal(201);
      const livePayment = (await pay(merchant.live, 700)).body.id;
      const otherOrganization = (await pay((await withAccount('Another organization')).sandbox, 700)).body.id;

      const messages = new Set<string>();
      for (const cursor of ['pay_nonexistent', 'garbage', livePayment, otherOrganization]) {
        messages.add((await expectRefused(merchant.sandbox, `/v1/payments?startingAfter=${cursor}`, 'query.startingAfter')).message);
      }
      expect([...messages]).to.deep.equal(['No such payment in this environment: query.startingAfter must be the id of the last payment of the previous page.']);
      const page = await merchant.sandbox.get(`/v1/payments?startingAfter=${own}`);
      expect(page.status).to.equal(200);
      expect(page.body.data.map((p: { id: string }) => p.id)).to.not.include(own);
    });

    it('the customer list refuses a cursor of another environment the same way', async () => {
      const first = (await merchant.sandbox.post('/v1/customers', { name: 'Ana' })).body.id;
      const second = (await merchant.sandbox.post('/v1/customers', { name: 'Bia' })).body.id;
      const live = (await merchant.live.post('/v1/customers', { name: 'Caio' })).body.id;
      for (const cursor of ['cus_nonexistent', live]) await expectRefused(merchant.sandbox, `/v1/customers?startingAfter=${cursor}`, 'query.startingAfter');
      const page = await merchant.sandbox.get(`/v1/customers?startingAfter=${second}`);
      expect(page.status).to.equal(200);
      expect(page.body.data.map((c: { id: string }) => c.id)).to.deep.equal([first]);
    });
  });
});
