import { expect } from 'chai';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import type { ApiClient } from '../../support/api-client';
import { TimeoutInjector } from '../../support/faulty-payment-connectors';
import { eventually } from '../../support/eventually';
import { IDENTITY_MODULE } from '../../../infrastructure/main/identity.module';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { paymentsModule } from '../../../infrastructure/main/payments.module';
import { recipientInput } from '../../support/builders/recipient.builder';
import { moduleList } from '../../../infrastructure/main/module';
import { NO_FLOWS_MODULE } from '../../support/no-flows-module';

const DEADLINE_MS = 400;

/**
 * A metadata map only the spec's bounds allow: 60 keys of 58 characters, values of each of the four types, strings
 * at the 512-character limit (there is no bound on the number or length of keys).
 */
const WIDE_METADATA = Object.fromEntries(
  Array.from({ length: 60 }, (_, i) => [`key_${i}_${'k'.repeat(50)}`, i % 4 === 0 ? 'v'.repeat(512) : i % 4 === 1 ? i : i % 4 === 2 ? true : null]),
);

interface EventRow {
  type: string;
  data: { object: Record<string, any>; previousAttributes: Record<string, any> | null };
}

describe('payments through the REST edge (PostgreSQL + sandbox acquirer over gRPC)', function () {
  this.timeout(60_000);
  let service: TestService;
  let merchant: Merchant;
  const injector = new TimeoutInjector();

  const events = async (objectId: string): Promise<EventRow[]> => {
    const rows = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ type: string; data: any }>>(
      'select type, data from events where object_id = ? order by sequence nulls last, id',
      [objectId],
    );
    return rows.map((r) => ({ type: r.type, data: typeof r.data === 'string' ? JSON.parse(r.data) : r.data }));
  };

  const createAccount = async (client: ApiClient, name: string, costBasisPoints: number, apiKey = 'sk_test') => {
    const r = await client.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name, credentials: { merchantId: `m_${name}`, apiKey }, costBasisPoints });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body.id as string;
  };

  /** A split recipient of the client's organization and environment (splits must name one). */
  const createRecipient = async (client: ApiClient, name: string) => {
    const r = await client.post('/v1/recipients', recipientInput({ name }));
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body.id as string;
  };

  const card = (scenario = 'approved', extra: Record<string, unknown> = {}) => ({
    token: `tok_sandbox_${scenario}`,
    brand: 'visa',
    bin: '411111',
    last4: '1111',
    expMonth: 12,
    expYear: 2030,
    holderName: 'ANA SILVA',
    ...extra,
  });

  before(async () => {
    service = await startTestServiceWith(moduleList().with(IDENTITY_MODULE).with(NO_FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule({ decorateConnectors: injector.decorate })), {
      transport: 'in-process',
      config: { connectorDeadlineMs: DEADLINE_MS },
    });
    merchant = await service.merchant('Payments merchant');
    await createAccount(merchant.sandbox, 'primary', 150);
    await createAccount(merchant.live, 'live-primary', 150);
  });
  after(async () => {
    await service?.stop();
  });

  describe('create', () => {
    it('automatic capture: 201 captured, one attempt, payment.captured with previousAttributes', async () => {
      const r = await merchant.sandbox.post('/v1/payments', { amount: 12_345, card: card(), description: 'order 1', externalId: 'ext-1' });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      expect(r.body).to.include({ object: 'payment', status: 'captured', amount: 12_345, capturedAmount: 12_345, currency: 'BRL', methodType: 'card' });
      expect(r.body.id).to.match(/^pay_/);
      expect(r.body.card).to.deep.equal({ brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030, holderName: 'ANA SILVA' });
      expect(r.body.attempts).to.have.length(1);
      expect(r.body.attempts[0]).to.include({ connector: 'sandbox', rawCode: '00', classification: 'APPROVED', outcome: 'approved' });
      expect(r.body.attempts[0].latencyMs).to.be.a('number');
      expect(r.body.acquirer.acquirerPaymentId).to.be.a('string');
      const evts = await events(r.body.id);
      expect(evts.map((e) => e.type)).to.deep.equal(['payment.captured']);
      expect(evts[0]!.data.previousAttributes).to.include({ status: 'processing', capturedAmount: 0 });
      expect(evts[0]!.data.object).to.include({ object: 'payment', id: r.body.id, status: 'captured' });
    });

    const declines: Array<[string, string, string, string, string]> = [
      ['insufficient_funds', '51', 'INSUFFICIENT_FUNDS', 'REVERSIBLE', 'RETRY_LATER'],
      ['do_not_honor', '05', 'DO_NOT_HONOR', 'REVERSIBLE', 'RETRY_LATER'],
      ['invalid_cvv', '82', 'INVALID_CVV', 'REVERSIBLE', 'RETRY_WITH_CORRECTED_DATA'],
      ['stolen_card', '43', 'STOLEN_CARD', 'irreversible', 'DO_NOT_RETRY'],
      ['expired_card', '54', 'EXPIRED_CARD', 'irreversible', 'RETRY_WITH_ANOTHER_CARD'],
    ];
    for (const [scenario, rawCode, reason, reversibility, retryAction] of declines) {
      it(`issuer decline ${scenario}: 201 failed with decline ${reason} (${retryAction}), payment.failed`, async () => {
        const r = await merchant.sandbox.post('/v1/payments', { amount: 1000, card: card(scenario) });
        expect(r.status).to.equal(201);
        expect(r.body.status).to.equal('failed');
        expect(r.body.decline).to.include({ rawCode, reason, reversibility, retryAction });
        expect(r.body.decline.label).to.be.a('string').and.not.empty;
        expect(r.body.decline.consumerMessage).to.be.a('string').and.not.empty;
        expect(r.body.attempts).to.have.length(1);
        expect(r.body.attempts[0]).to.include({ outcome: 'declined', rawCode, classification: reason });
        const evts = await events(r.body.id);
        expect(evts.map((e) => e.type)).to.deep.equal(['payment.failed']);
        expect(evts[0]!.data.object.decline.reason).to.equal(reason);
        expect(evts[0]!.data.previousAttributes).to.include({ status: 'processing' });
      });
    }

    it("each method's own rules are checked before anything is saved (domain/payment/methods), with the field named", async () => {
      const payer = (await merchant.sandbox.post('/v1/customers', { name: 'Paula Pagadora', document: '52998224725' })).body.id;
      const before = (await merchant.sandbox.get('/v1/payments?limit=100')).body.totalCount;
      const refusals: Array<[Record<string, unknown>, string, string]> = [
        [{ amount: 100, methodType: 'pix' }, 'validation_failed', 'body.customerId'],
        [{ amount: 100, methodType: 'pix', customerId: payer, card: card() }, 'validation_failed', 'body.card'],
        [{ amount: 100, methodType: 'boleto', customerId: payer }, 'validation_failed', 'body.customerId'], // no address
        [{ amount: 100, methodType: 'debit_card', card: card() }, 'validation_failed', 'body.card'],
        [{ amount: 100, methodType: 'debit_card', installments: 2 }, 'validation_failed', 'body.installments'],
        [{ amount: 100, card: card(), pix: { expiresInSeconds: 600 } }, 'validation_failed', 'body.pix'],
        [{ amount: 100, methodType: 'debit_card', captureMethod: 'manual' }, 'validation_failed', 'body.captureMethod'],
        [{ amount: 100, methodType: 'pix', customerId: payer, captureMethod: 'manual' }, 'validation_failed', 'body.captureMethod'],
      ];
      for (const [body, code, param] of refusals) {
        const r = await merchant.sandbox.post('/v1/payments', body);
        expect(r.status, JSON.stringify(body)).to.equal(422);
        expect(r.body.error, JSON.stringify(body)).to.include({ code, param });
      }
      expect((await merchant.sandbox.get('/v1/payments?limit=100')).body.totalCount).to.equal(before);
    });

    it('refuses card numbers and CVV with 422 and a clear message', async () => {
      for (const [body, param] of [
        [{ amount: 100, card: { ...card(), number: '4111111111111111' } }, 'body.card.number'],
        [{ amount: 100, card: { ...card(), cvv: '123' } }, 'body.card.cvv'],
        [{ amount: 100, card: card(), number: '4111111111111111' }, 'body.number'],
        [{ amount: 100, card: card(), cvv: '123' }, 'body.cvv'],
      ] as const) {
        const r = await merchant.sandbox.post('/v1/payments', body);
        expect(r.status).to.equal(422);
        expect(r.body.error.code).to.equal('sensitive_card_data');
        expect(r.body.error.param).to.equal(param);
        expect(r.body.error.message).to.match(/never accepts card numbers or security codes/);
      }
    });

    it('refuses a card number written into free text (description, metadata, items, holder name, merchant defined fields) or sent as the token', async () => {
      for (const [body, param] of [
        [{ amount: 100, card: card(), description: 'paid with 4111 1111 1111 1111, thanks' }, 'body.description'],
        [{ amount: 100, card: card(), metadata: { note: 'card=5555-5555-5555-4444' } }, 'body.metadata.note'],
        [{ amount: 100, card: card(), items: [{ name: 'Gift', quantity: 1, amount: 100 }, { name: 'x 378282246310005', quantity: 1, amount: 1 }] }, 'body.items[1].name'],
        [{ amount: 100, card: { ...card(), holderName: 'ANA 4012888888881881' } }, 'body.card.holderName'],
        [{ amount: 100, card: card(), fraudAnalysis: { merchantDefinedFields: [{ id: 1, value: '4111111111111111' }] } }, 'body.fraudAnalysis.merchantDefinedFields[0].value'],
        [{ amount: 100, card: { ...card(), token: '4111111111111111' } }, 'body.card.token'],
        [{ amount: 100, card: { ...card(), token: '4111 1111 1111 1111' } }, 'body.card.token'],
        [{ amount: 100, card: card(), metadata: { CVV: '123' } }, 'body.metadata.CVV'],
        [{ amount: 100, card: card(), metadata: { security_code: '1234' } }, 'body.metadata.security_code'],
      ] as const) {
        const r = await merchant.sandbox.post('/v1/payments', body);
        expect(r.status, JSON.stringify(body)).to.equal(422);
        expect(r.body.error, JSON.stringify(r.body.error)).to.include({ code: "sensitive_card_data", param });
      }
      // Digits that fail Luhn, and identifiers the merchant chooses, are not card numbers to refuse.
      const accepted = await merchant.sandbox.post('/v1/payments', {
        amount: 100,
        card: card(),
        description: 'order 4111 1111 1111 1112',
        externalId: '4111111111111111',
        metadata: { batch: 4111111111 },
      });
      expect(accepted.status).to.equal(201);
    });

    it('refuses unknown fields and out-of-bound values with 422 validation_failed', async () => {
      const unknown = await merchant.sandbox.post('/v1/payments', { amount: 100, card: card(), color: 'red' });
      expect(unknown.status).to.equal(422);
      expect(unknown.body.error).to.include({ code: 'validation_failed', param: 'body.color' });
      for (const [body, param] of [
        [{ amount: 0, card: card() }, 'body.amount'],
        [{ amount: 10_000_000_000, card: card() }, 'body.amount'],
        [{ amount: 100, card: card(), installments: 25 }, 'body.installments'],
        [{ amount: 100, card: card(), items: [{ name: 'x', quantity: 1_000_001, amount: 1 }] }, 'body.items[0].quantity'],
        [{ amount: 100, card: card(), softDescriptor: 'x'.repeat(23) }, 'body.softDescriptor'],
        [{ amount: 100, card: { ...card(), bin: '12345' } }, 'body.card.bin'],
        [{ amount: 100, card: { ...card(), token: 'short' } }, 'body.card.token'],
        [{ amount: 100, card: card(), currency: 'JPY' }, 'body.currency'],
        [{ amount: 100, card: card(), clientIp: 'not-an-ip' }, 'body.clientIp'],
        [{ amount: 100, card: card(), deviceId: 'short' }, 'body.deviceId'],
        [{ amount: 100, card: card(), metadata: { k: 'v'.repeat(513) } }, 'body.metadata.k'],
        [{ amount: 100, card: card(), splits: Array.from({ length: 21 }, () => ({ recipientId: 'rcp_1', type: 'fixed', value: 1 })) }, 'body.splits'],
        // The rest of the spec's body table, one bound each.
        [{ amount: 1.5, card: card() }, 'body.amount'],
        [{ amount: 100, card: { ...card(), expMonth: 13 } }, 'body.card.expMonth'],
        [{ amount: 100, card: { ...card(), expYear: 2023 } }, 'body.card.expYear'],
        [{ amount: 100, card: { ...card(), last4: '123' } }, 'body.card.last4'],
        [{ amount: 100, card: { ...card(), holderName: 'x'.repeat(121) } }, 'body.card.holderName'],
        [{ amount: 100, card: { ...card(), brand: 'x'.repeat(33) } }, 'body.card.brand'],
        [{ amount: 100, card: { ...card(), token: 't'.repeat(257) } }, 'body.card.token'],
        [{ amount: 100, card: { ...card(), connectorAccountId: 'c'.repeat(65) } }, 'body.card.connectorAccountId'],
        [{ amount: 100, card: card(), installments: 0 }, 'body.installments'],
        [{ amount: 100, card: card(), captureMethod: 'later' }, 'body.captureMethod'],
        [{ amount: 100, card: card(), initiator: 'robot' }, 'body.initiator'],
        [{ amount: 100, card: card(), mitType: 'weekly' }, 'body.mitType'],
        [{ amount: 100, card: card(), methodType: 'cash' }, 'body.methodType'],
        [{ amount: 100, card: card(), description: 'x'.repeat(256) }, 'body.description'],
        [{ amount: 100, card: card(), externalId: 'x'.repeat(129) }, 'body.externalId'],
        [{ amount: 100, card: card(), clientUserAgent: 'x'.repeat(513) }, 'body.clientUserAgent'],
        [{ amount: 100, card: card(), flowId: 'x'.repeat(65) }, 'body.flowId'],
        [{ amount: 100, card: card(), customerId: 'x'.repeat(65) }, 'body.customerId'],
        [{ amount: 100, card: card(), paymentMethodId: 'x'.repeat(65) }, 'body.paymentMethodId'],
        [{ amount: 100, card: card(), tokenizationAccountId: 'x'.repeat(65) }, 'body.tokenizationAccountId'],
        [{ amount: 100, card: card(), splitRemainderRecipientId: 'x'.repeat(65) }, 'body.splitRemainderRecipientId'],
        [{ amount: 100, card: card(), deviceId: 'device id with spaces' }, 'body.deviceId'],
        [{ amount: 100, card: card(), metadata: { k: { nested: true } } }, 'body.metadata.k'],
        [{ amount: 100, card: card(), pix: { expiresInSeconds: 59 } }, 'body.pix.expiresInSeconds'],
        [{ amount: 100, card: card(), boleto: { daysAfterDue: 61 } }, 'body.boleto.daysAfterDue'],
        [{ amount: 100, card: card(), boleto: { fineBps: 2001 } }, 'body.boleto.fineBps'],
        [{ amount: 100, card: card(), boleto: { dueDate: '25/11/2026' } }, 'body.boleto.dueDate'],
        [{ amount: 100, card: card(), items: Array.from({ length: 101 }, () => ({ name: 'i', quantity: 1, amount: 1 })) }, 'body.items'],
        [{ amount: 100, card: card(), items: [{ name: 'i', quantity: 0, amount: 1 }] }, 'body.items[0].quantity'],
        [{ amount: 100, card: card(), items: [{ name: 'i', quantity: 1, amount: 0 }] }, 'body.items[0].amount'],
        [{ amount: 100, card: card(), items: [{ name: 'i', quantity: 1, amount: 1, sku: 's'.repeat(65) }] }, 'body.items[0].sku'],
        [{ amount: 100, card: card(), items: [{ name: 'x'.repeat(256), quantity: 1, amount: 1 }] }, 'body.items[0].name'],
        [{ amount: 100, card: card(), splits: [{ recipientId: 'rcp_1', type: 'share', value: 1 }] }, 'body.splits[0].type'],
        [{ amount: 100, card: card(), splits: [{ recipientId: 'rcp_1', type: 'fixed', value: -1 }] }, 'body.splits[0].value'],
        [{ amount: 100, card: card(), fraudAnalysis: { fingerprintSessionId: 'not allowed!' } }, 'body.fraudAnalysis.fingerprintSessionId'],
        [{ amount: 100, card: card(), fraudAnalysis: { fingerprintSessionId: 'f'.repeat(89) } }, 'body.fraudAnalysis.fingerprintSessionId'],
        [{ amount: 100, card: card(), fraudAnalysis: { shipping: { method: 'teleport' } } }, 'body.fraudAnalysis.shipping.method'],
        [{ amount: 100, card: card(), fraudAnalysis: { shipping: { phone: '1'.repeat(21) } } }, 'body.fraudAnalysis.shipping.phone'],
        [{ amount: 100, card: card(), fraudAnalysis: { merchantDefinedFields: [{ id: 90, value: 'a' }] } }, 'body.fraudAnalysis.merchantDefinedFields[0].id'],
        [{ amount: 100, card: card(), fraudAnalysis: { merchantDefinedFields: [{ id: 1, value: '' }] } }, 'body.fraudAnalysis.merchantDefinedFields[0].value'],
        [{ amount: 100, card: card(), fraudAnalysis: { merchantDefinedFields: Array.from({ length: 101 }, (_, i) => ({ id: (i % 89) + 1, value: 'a' })) } }, 'body.fraudAnalysis.merchantDefinedFields'],
      ] as const) {
        const r = await merchant.sandbox.post('/v1/payments', body);
        expect(r.status, JSON.stringify(body).slice(0, 200)).to.equal(422);
        expect(r.body.error.param, JSON.stringify(r.body.error).slice(0, 300)).to.equal(param);
      }
      // The metadata map is bounded by its values only (spec).
      const metadata = WIDE_METADATA;
      const wide = await merchant.sandbox.post('/v1/payments', { amount: 100, card: card(), metadata });
      expect(wide.status, JSON.stringify(wide.body).slice(0, 300)).to.equal(201);
      expect(wide.body.metadata).to.deep.equal(metadata);
      const repeated = await merchant.sandbox.post('/v1/payments', {
        amount: 100,
        card: card(),
        fraudAnalysis: { merchantDefinedFields: [{ id: 1, value: 'a' }, { id: 1, value: 'b' }] },
      });
      expect(repeated.status).to.equal(422);
      expect(repeated.body.error.param).to.equal('body.fraudAnalysis.merchantDefinedFields[1].id');
    });

    it('Idempotency-Key: same body replays the first answer; another body is 409', async () => {
      const key = `idem-${Date.now()}`;
      const first = await merchant.sandbox.post('/v1/payments', { amount: 777, card: card() }, { 'Idempotency-Key': key });
      const again = await merchant.sandbox.post('/v1/payments', { amount: 777, card: card() }, { 'Idempotency-Key': key });
      expect(first.status).to.equal(201);
      expect(again.status).to.equal(201);
      expect(again.body.id).to.equal(first.body.id);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      const other = await merchant.sandbox.post('/v1/payments', { amount: 778, card: card() }, { 'Idempotency-Key': key });
      expect(other.status).to.equal(409);
      expect(other.body.error.code).to.equal('idempotency_conflict');
    });

    it('Idempotency-Key taken over after its process died: the repetition answers the payment that process created, and charges nothing again', async () => {
      const m = await service.merchant('Idempotency takeover');
      await createAccount(m.sandbox, 'primary', 100);
      const key = `died-${Date.now()}`;
      const first = await m.sandbox.post('/v1/payments', { amount: 4_321, card: card() }, { 'Idempotency-Key': key });
      expect(first.status).to.equal(201);
      // As if the process had died after creating the payment and before storing its answer: the key stays in flight
      // and its lock runs out, so the edge lets the repetition take it over.
      await service.core.orm.em.fork({ useContext: false }).execute(
        `update idempotency_keys set state = 'in_flight', response_status = null, response_body = null, locked_until = now() - interval '1 second'
          where organization_id = ? and key = ?`,
        [m.organizationId, key],
      );
      const repeated = await m.sandbox.post('/v1/payments', { amount: 4_321, card: card() }, { 'Idempotency-Key': key });
      expect(repeated.status).to.equal(201);
      expect(repeated.headers.get('idempotent-replayed'), 'a takeover, not a replay').to.equal(null);
      expect(repeated.body).to.include({ id: first.body.id, status: 'captured' });
      expect(repeated.body.attempts).to.have.length(1);
      expect((await m.sandbox.get('/v1/payments')).body.data.map((p: { id: string }) => p.id)).to.deep.equal([first.body.id]);
      // The takeover stored its answer: the key replays from now on.
      expect((await m.sandbox.post('/v1/payments', { amount: 4_321, card: card() }, { 'Idempotency-Key': key })).headers.get('idempotent-replayed')).to.equal('true');
    });

    it('acquirer fraud review: authorized with fraudReview pending even with automatic capture', async () => {
      const r = await merchant.sandbox.post('/v1/payments', { amount: 5000, card: card('fraud_review') });
      expect(r.status).to.equal(201);
      expect(r.body.status).to.equal('authorized');
      expect(r.body.fraudReview.status).to.equal('pending');
      const captured = await merchant.sandbox.post(`/v1/payments/${r.body.id}/capture`, {});
      expect(captured.status, JSON.stringify(captured.body)).to.equal(201);
      expect(captured.body.status).to.equal('captured');
      expect(captured.body.fraudReview.status).to.equal('merchant_decided');
      const evts = await events(r.body.id);
      expect(evts.map((e) => e.type)).to.deep.equal(['payment.authorized', 'payment.captured', 'payment.fraud_review_resolved']);
      expect(evts[1]!.data.object.fraudReview.status).to.equal('merchant_decided');
      expect(evts[2]!.data.previousAttributes!.fraudReview.status).to.equal('pending');
    });
  });

  describe('routing with fallback', () => {
    it('falls back to the next account on a technical failure, recording one attempt per account', async () => {
      const m = await service.merchant('Fallback technical');
      const broken = await createAccount(m.sandbox, 'broken', 10, 'unreachable');
      const healthy = await createAccount(m.sandbox, 'healthy', 500);
      const r = await m.sandbox.post('/v1/payments', { amount: 2000, card: card() });
      expect(r.status).to.equal(201);
      expect(r.body.status).to.equal('captured');
      expect(r.body.hasFallback).to.equal(true);
      expect(r.body.connectorAccountId).to.equal(healthy);
      expect(r.body.attempts.map((a: any) => [a.connectorAccountId, a.outcome])).to.deep.equal([
        [broken, 'technical_failure'],
        [healthy, 'approved'],
      ]);
      expect(r.body.attempts[0].classification).to.equal('TECHNICAL_FAILURE');
      // Each call feeds its account's health, recorded with the payment's outcome.
      const health = async (id: string) => (await m.sandbox.get(`/v1/connector-accounts/${id}`)).body.health.recentCalls;
      expect(await health(broken)).to.include({ total: 1, approved: 0, technicalFailures: 1 });
      expect(await health(healthy)).to.include({ total: 1, approved: 1 });
    });

    it('falls back when the first account times out (short connector deadline)', async () => {
      const m = await service.merchant('Fallback timeout');
      const slow = await createAccount(m.sandbox, 'slow', 10);
      const fast = await createAccount(m.sandbox, 'fast', 20);
      injector.accountIds.add(slow);
      const started = Date.now();
      const r = await m.sandbox.post('/v1/payments', { amount: 3000, card: card(), captureMethod: 'manual' });
      expect(r.status).to.equal(201);
      expect(r.body.status).to.equal('authorized');
      expect(r.body.connectorAccountId).to.equal(fast);
      const [first, second] = r.body.attempts;
      expect(first).to.include({ connectorAccountId: slow, outcome: 'timeout', classification: 'TIMEOUT', rawCode: null });
      expect(first.latencyMs).to.be.at.least(DEADLINE_MS - 50);
      expect(second).to.include({ connectorAccountId: fast, outcome: 'approved' });
      expect(Date.now() - started).to.be.below(DEADLINE_MS + 5_000);
      const evts = await events(r.body.id);
      expect(evts.map((e) => e.type)).to.deep.equal(['payment.authorized']);
      expect(evts[0]!.data.object.attempts).to.have.length(2);
    });

    it("a card pinned to an account of another environment, or to no account, is 404 and creates nothing", async () => {
      const m = await service.merchant('Pinned elsewhere');
      await createAccount(m.sandbox, 'sandbox-primary', 100);
      const liveAccount = await createAccount(m.live, 'live-primary', 100);
      for (const pinned of [liveAccount, 'ca_does_not_exist']) {
        const r = await m.sandbox.post('/v1/payments', { amount: 700, card: card('approved', { connectorAccountId: pinned }) });
        expect(r.status, JSON.stringify(r.body)).to.equal(404);
        expect(r.body.error.code).to.equal('not_found');
        expect(r.body.error.message).to.not.match(/live/i);
      }
      expect((await m.sandbox.get('/v1/payments')).body.data).to.deep.equal([]);
      const own = await m.live.post('/v1/payments', { amount: 700, card: card('approved', { connectorAccountId: liveAccount }) });
      expect(own.body).to.include({ status: 'captured', connectorAccountId: liveAccount });
    });

    it('routes by the accounts as they are now in every edge process: one added or disabled through another process is used or skipped at once', async () => {
      const second = await startTestServiceWith(moduleList().with(IDENTITY_MODULE).with(NO_FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule()), {
        joining: service,
        transport: 'in-process',
        workers: false,
        config: { connectorDeadlineMs: DEADLINE_MS },
      });
      try {
        const m = await service.merchant('Two edges');
        const throughSecond = second.client(m.sandboxKey);
        const routedTo = async () => (await throughSecond.post('/v1/payments', { amount: 1500, card: card() })).body.connectorAccountId as string;
        const pricey = await createAccount(m.sandbox, 'pricey', 300);
        expect(await routedTo()).to.equal(pricey);
        expect(await routedTo()).to.equal(pricey); // the second process now remembers the environment's accounts

        const cheap = await createAccount(m.sandbox, 'cheap', 5);
        await eventually(async () => (await routedTo()) === cheap, 2_000, 20);
        expect((await m.sandbox.patch(`/v1/connector-accounts/${cheap}`, { enabled: false })).status).to.equal(200);
        await eventually(async () => (await routedTo()) === pricey, 2_000, 20);
      } finally {
        await second.stop();
      }
    });

    it('an issuer decline ends routing (no fallback)', async () => {
      const m = await service.merchant('Decline stops');
      await createAccount(m.sandbox, 'a', 10);
      await createAccount(m.sandbox, 'b', 20);
      const r = await m.sandbox.post('/v1/payments', { amount: 3000, card: card('insufficient_funds') });
      expect(r.body.status).to.equal('failed');
      expect(r.body.attempts).to.have.length(1);
    });

    it('fails with error when every account fails technically, and when no account exists', async () => {
      const m = await service.merchant('All broken');
      await createAccount(m.sandbox, 'x', 10, 'unreachable');
      const r = await m.sandbox.post('/v1/payments', { amount: 3000, card: card() });
      expect(r.status).to.equal(201);
      expect(r.body.status).to.equal('failed');
      expect(r.body.error.code).to.equal('connector_unavailable');
      expect(r.body.attempts).to.have.length(1);
      const none = await service.merchant('No accounts');
      const n = await none.sandbox.post('/v1/payments', { amount: 3000, card: card() });
      expect(n.status).to.equal(201);
      expect(n.body.status).to.equal('failed');
      expect(n.body.error).to.include({ code: 'no_connector_available', stage: 'routing' });
      expect((await events(n.body.id)).map((e) => e.type)).to.deep.equal(['payment.failed']);
    });
  });

  describe('capture, void, refund', () => {
    const manual = async (amount = 10_000) => {
      const r = await merchant.sandbox.post('/v1/payments', { amount, card: card(), captureMethod: 'manual' });
      expect(r.body.status).to.equal('authorized');
      expect(r.body.authorizationExpiresAt).to.be.a('string');
      return r.body.id as string;
    };

    it('partial capture releases the rest; a second capture is 409; more than available is 422', async () => {
      const id = await manual();
      const over = await merchant.sandbox.post(`/v1/payments/${id}/capture`, { amount: 10_001 });
      expect(over.status).to.equal(422);
      expect(over.body.error.code).to.equal('amount_exceeds_available');
      const r = await merchant.sandbox.post(`/v1/payments/${id}/capture`, { amount: 6_000 });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      expect(r.body).to.include({ status: 'captured', capturedAmount: 6_000 });
      const again = await merchant.sandbox.post(`/v1/payments/${id}/capture`, {});
      expect(again.status).to.equal(409);
      expect(again.body.error.code).to.equal('invalid_state');
      const evts = await events(id);
      expect(evts.map((e) => e.type)).to.deep.equal(['payment.authorized', 'payment.captured']);
      expect(evts[1]!.data.previousAttributes).to.deep.equal({ status: 'authorized', capturedAmount: 0 });
      const view = await merchant.sandbox.get(`/v1/payments/${id}`);
      expect(view.body.operations).to.have.length(1);
      expect(view.body.operations[0]).to.include({ type: 'capture', amount: 6_000, releasedAmount: 4_000 });
    });

    it('capture of an automatic payment is 409 invalid_state', async () => {
      const r = await merchant.sandbox.post('/v1/payments', { amount: 500, card: card() });
      const c = await merchant.sandbox.post(`/v1/payments/${r.body.id}/capture`, {});
      expect(c.status).to.equal(409);
      expect(c.body.error.code).to.equal('invalid_state');
    });

    it('void an authorized payment: voided, payment.voided; void again 409', async () => {
      const id = await manual();
      const r = await merchant.sandbox.post(`/v1/payments/${id}/void`, { reason: 'customer canceled' });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      expect(r.body.status).to.equal('voided');
      const again = await merchant.sandbox.post(`/v1/payments/${id}/void`, {});
      expect(again.status).to.equal(409);
      expect(again.body.error.code).to.equal('invalid_state');
      const evts = await events(id);
      expect(evts.map((e) => e.type)).to.deep.equal(['payment.authorized', 'payment.voided']);
      expect(evts[0]!.data.previousAttributes).to.include({ status: 'processing' });
      expect(evts[1]!.data.previousAttributes).to.deep.equal({ status: 'authorized' });
    });

    it('void goes to the account that authorized, after a fallback too', async () => {
      const m = await service.merchant('Void after fallback');
      await createAccount(m.sandbox, 'down', 10, 'unreachable');
      const up = await createAccount(m.sandbox, 'up', 20);
      const r = await m.sandbox.post('/v1/payments', { amount: 900, card: card(), captureMethod: 'manual' });
      expect(r.body).to.include({ status: 'authorized', connectorAccountId: up });
      // The unreachable account would answer 503; the void reaches the one that holds the authorization.
      const v = await m.sandbox.post(`/v1/payments/${r.body.id}/void`, {});
      expect(v.status, JSON.stringify(v.body)).to.equal(201);
      expect(v.body.status).to.equal('voided');
    });

    it("capture, refund and void calls feed the account's health like authorizations", async () => {
      const m = await service.merchant('Operations health');
      const account = await createAccount(m.sandbox, 'only', 10);
      const captured = (await m.sandbox.post('/v1/payments', { amount: 900, card: card(), captureMethod: 'manual' })).body.id as string;
      expect((await m.sandbox.post(`/v1/payments/${captured}/capture`, {})).status).to.equal(201);
      expect((await m.sandbox.post(`/v1/payments/${captured}/refund`, { amount: 100 })).status).to.equal(201);
      const voided = (await m.sandbox.post('/v1/payments', { amount: 900, card: card(), captureMethod: 'manual' })).body.id as string;
      expect((await m.sandbox.post(`/v1/payments/${voided}/void`, {})).status).to.equal(201);
      const health = (await m.sandbox.get(`/v1/connector-accounts/${account}`)).body.health.recentCalls;
      expect(health).to.include({ total: 5, approved: 5 });
    });

    it('void of a captured payment is 409', async () => {
      const r = await merchant.sandbox.post('/v1/payments', { amount: 500, card: card() });
      const v = await merchant.sandbox.post(`/v1/payments/${r.body.id}/void`, {});
      expect(v.status).to.equal(409);
    });

    it('several partial refunds then full; status stays captured; over-refund 422; after full 409', async () => {
      const r = await merchant.sandbox.post('/v1/payments', { amount: 10_000, card: card() });
      const id = r.body.id as string;
      const a = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 3_000, reason: 'item 1' });
      expect(a.status, JSON.stringify(a.body)).to.equal(201);
      expect(a.body).to.include({ status: 'captured', refundedAmount: 3_000, refundStatus: 'partial' });
      const over = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 7_001 });
      expect(over.status).to.equal(422);
      expect(over.body.error.code).to.equal('amount_exceeds_available');
      const b = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 2_000 });
      expect(b.body.refundStatus).to.equal('partial');
      const c = await merchant.sandbox.post(`/v1/payments/${id}/refund`, {});
      expect(c.body).to.include({ status: 'captured', refundedAmount: 10_000, refundStatus: 'full' });
      const after = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 1 });
      expect(after.status).to.equal(409);
      const evts = await events(id);
      expect(evts.map((e) => e.type)).to.deep.equal(['payment.captured', 'payment.partially_refunded', 'payment.partially_refunded', 'payment.refunded']);
      expect(evts[1]!.data.previousAttributes).to.deep.equal({ refundedAmount: 0, refundStatus: null });
      expect(evts[3]!.data.previousAttributes).to.deep.equal({ refundedAmount: 5_000, refundStatus: 'partial' });
      const view = await merchant.sandbox.get(`/v1/payments/${id}`);
      expect(view.body.refunds.map((x: any) => x.amount)).to.deep.equal([3_000, 2_000, 5_000]);
      expect(view.body.allowedActions).to.deep.equal([]);
      expect(view.body.timeline.map((t: any) => t.type)).to.deep.equal(evts.map((e) => e.type));
    });

    it('a refund keeps its metadata, bounded by its values only: a value over 512 characters or a nested object is 422 and refunds nothing', async () => {
      const id = (await merchant.sandbox.post('/v1/payments', { amount: 5_000, card: card() })).body.id as string;
      for (const [metadata, param] of [
        [{ note: 'v'.repeat(513) }, 'body.metadata.note'],
        [{ note: { nested: true } }, 'body.metadata.note'],
      ] as const) {
        const refused = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 1_000, metadata });
        expect(refused.status).to.equal(422);
        expect(refused.body.error.param).to.equal(param);
      }
      expect((await merchant.sandbox.get(`/v1/payments/${id}`)).body.refundedAmount).to.equal(0);
      const metadata = WIDE_METADATA;
      const refunded = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 1_000, metadata });
      expect(refunded.status, JSON.stringify(refunded.body).slice(0, 300)).to.equal(201);
      const view = await merchant.sandbox.get(`/v1/payments/${id}`);
      expect(view.body.refunds).to.have.length(1);
      expect(view.body.refunds[0].metadata).to.deep.equal(metadata);
    });

    it('a card number in the reason or metadata of a refund or void is 422 sensitive_card_data and changes nothing', async () => {
      const captured = (await merchant.sandbox.post('/v1/payments', { amount: 5_000, card: card() })).body.id as string;
      const authorized = await manual();
      for (const [path, body, param] of [
        [`/v1/payments/${captured}/refund`, { amount: 100, reason: '4111111111111111' }, 'body.reason'],
        [`/v1/payments/${captured}/refund`, { amount: 100, metadata: { note: '4111 1111 1111 1111' } }, 'body.metadata.note'],
        [`/v1/payments/${captured}/refund`, { amount: 100, metadata: { cvv: '123' } }, 'body.metadata.cvv'],
        [`/v1/payments/${authorized}/void`, { reason: 'card 4111111111111111' }, 'body.reason'],
      ] as const) {
        const refused = await merchant.sandbox.post(path, body);
        expect(refused.status, path).to.equal(422);
        expect(refused.body.error).to.include({ code: 'sensitive_card_data', param });
      }
      expect((await merchant.sandbox.get(`/v1/payments/${captured}`)).body).to.include({ refundedAmount: 0 });
      expect((await merchant.sandbox.get(`/v1/payments/${authorized}`)).body).to.include({ status: 'authorized' });
    });

    it('refunds only what was captured: none before capture (409), up to a partial capture after it (422 above)', async () => {
      const id = await manual();
      const early = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 1_000 });
      expect(early.status).to.equal(409);
      expect(early.body.error.code).to.equal('invalid_state');
      await merchant.sandbox.post(`/v1/payments/${id}/capture`, { amount: 6_000 });
      const over = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 6_001 });
      expect(over.status).to.equal(422);
      expect(over.body.error.code).to.equal('amount_exceeds_available');
      const all = await merchant.sandbox.post(`/v1/payments/${id}/refund`, {});
      expect(all.body).to.include({ refundedAmount: 6_000, refundStatus: 'full', capturedAmount: 6_000 });
    });

    it('splits: each share accumulates its part of a partial capture and of each refund, ending at its share; events carry the shares', async () => {
      const seller = await createRecipient(merchant.sandbox, 'Seller');
      const platform = await createRecipient(merchant.sandbox, 'Platform');
      const splits = [
        { recipientId: seller, type: 'percentage', value: 7_000 },
        { recipientId: platform, type: 'percentage', value: 3_000 },
      ];
      const created = await merchant.sandbox.post('/v1/payments', { amount: 10_000, card: card(), captureMethod: 'manual', splits });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const id = created.body.id as string;
      const shares = (body: any) => body.splits.map((s: any) => [s.recipientId, s.amount, s.capturedAmount, s.refundedAmount]);
      expect(shares(created.body)).to.deep.equal([[seller, 7_000, 0, 0], [platform, 3_000, 0, 0]]);

      // 5,001 of 10,000: each share its proportion, rounded down (the odd cent stays with the merchant).
      const captured = await merchant.sandbox.post(`/v1/payments/${id}/capture`, { amount: 5_001 });
      expect(shares(captured.body)).to.deep.equal([[seller, 7_000, 3_500, 0], [platform, 3_000, 1_500, 0]]);
      const partial = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 1_001 });
      expect(shares(partial.body)).to.deep.equal([[seller, 7_000, 3_500, 700], [platform, 3_000, 1_500, 300]]);
      const rest = await merchant.sandbox.post(`/v1/payments/${id}/refund`, {});
      expect(shares(rest.body)).to.deep.equal([[seller, 7_000, 3_500, 3_500], [platform, 3_000, 1_500, 1_500]]);

      const evts = await events(id);
      expect(evts.map((e) => e.type)).to.deep.equal(['payment.authorized', 'payment.captured', 'payment.partially_refunded', 'payment.refunded']);
      expect(shares(evts[1]!.data.object)).to.deep.equal(shares(captured.body));
      expect(shares(evts[1]!.data.previousAttributes)).to.deep.equal([[seller, 7_000, 0, 0], [platform, 3_000, 0, 0]]);
      expect(shares(evts[3]!.data.previousAttributes)).to.deep.equal(shares(partial.body));
    });

    it('splits: the remainder recipient takes the cents rounding leaves over; bad recipients are 422 and create nothing', async () => {
      const third = (recipientId: string) => ({ recipientId, type: 'percentage', value: 3_333 });
      const a = await createRecipient(merchant.sandbox, 'A');
      const b = await createRecipient(merchant.sandbox, 'B');
      const r = await merchant.sandbox.post('/v1/payments', { amount: 1_001, card: card(), splits: [third(a), third(b)], splitRemainderRecipientId: b });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      // 33.33 % of 1,001 is 333.63 each: 333 + 333, and the 1 cent of 667 (66.66 %) they leave goes to b.
      expect(r.body.splits.map((s: any) => [s.recipientId, s.amount, s.capturedAmount])).to.deep.equal([[a, 333, 333], [b, 334, 334]]);
      const m = await service.merchant('Split refusals');
      await createAccount(m.sandbox, 'primary', 150);
      const own = await createRecipient(m.sandbox, 'Own');
      const z = await createRecipient(m.sandbox, 'Z');
      for (const [body, param] of [
        [{ splits: [third(own)], splitRemainderRecipientId: z }, 'body.splitRemainderRecipientId'],
        [{ splits: [third('')] }, 'body.splits[0].recipientId'],
        [{ splits: [third('seller-1')] }, 'body.splits[0].recipientId'],
        [{ splits: [{ ...third(own), value: 10_001 }] }, 'body.splits[0].value'],
        [{ splits: [third(own), third(own)] }, 'body.splits[1].recipientId'],
      ] as const) {
        const refused = await m.sandbox.post('/v1/payments', { amount: 1_001, card: card(), ...body });
        expect(refused.status, JSON.stringify(body)).to.equal(422);
        expect(refused.body.error, JSON.stringify(body)).to.include({ code: 'validation_failed', param });
      }
      expect((await m.sandbox.get('/v1/payments')).body.data).to.deep.equal([]);
    });

    it('splits: a recipient that is not of the payment\'s organization and environment is 422 resource_missing naming the split, and creates nothing', async () => {
      const m = await service.merchant('Split recipients elsewhere');
      await createAccount(m.sandbox, 'primary', 150);
      const own = await createRecipient(m.sandbox, 'Own');
      const live = await createRecipient(m.live, 'Live');
      const otherOrganization = await createRecipient(merchant.sandbox, 'Other organization');
      const share = (recipientId: string) => ({ recipientId, type: 'fixed', value: 100 });
      for (const [body, param] of [
        [{ splits: [share('rcp_01NOSUCHRECIPIENT0000000000')] }, 'body.splits[0].recipientId'],
        [{ splits: [share(own), share(live)] }, 'body.splits[1].recipientId'],
        [{ splits: [share(own), share(otherOrganization)], splitRemainderRecipientId: own }, 'body.splits[1].recipientId'],
        [{ splits: [share(live), share(own)], splitRemainderRecipientId: live }, 'body.splits[0].recipientId'],
      ] as const) {
        const refused = await m.sandbox.post('/v1/payments', { amount: 1_000, card: card(), ...body });
        expect(refused.status, JSON.stringify(body)).to.equal(422);
        expect(refused.body.error, JSON.stringify(body)).to.include({ code: 'resource_missing', param });
      }
      expect((await m.sandbox.get('/v1/payments')).body.data).to.deep.equal([]);
      const evts = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ n: string }>>(`select count(*)::text as n from events where organization_id = ? and type like 'payment.%'`, [m.organizationId]);
      expect(evts[0]!.n).to.equal('0');
      // The same splits of its own recipients go through.
      const accepted = await m.sandbox.post('/v1/payments', { amount: 1_000, card: card(), splits: [share(own)] });
      expect(accepted.status, JSON.stringify(accepted.body)).to.equal(201);
      expect(accepted.body.splits.map((s: any) => s.recipientId)).to.deep.equal([own]);
    });

    it('a failed payment can be neither voided, captured nor refunded (409)', async () => {
      const failed = await merchant.sandbox.post('/v1/payments', { amount: 500, card: card('insufficient_funds') });
      expect(failed.body.status).to.equal('failed');
      for (const action of ['void', 'capture', 'refund']) {
        const r = await merchant.sandbox.post(`/v1/payments/${failed.body.id}/${action}`, {});
        expect(r.status, action).to.equal(409);
        expect(r.body.error.code).to.equal('invalid_state');
      }
    });

    it('a refund whose answer was lost is settled by repeating it: same operation at the acquirer, recorded once; other operations wait with 409', async () => {
      const r = await merchant.sandbox.post('/v1/payments', { amount: 10_000, card: card() });
      const id = r.body.id as string;
      injector.loseNextAnswer('refund');
      const lostAt = Date.now();
      const lost = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 3_000 }, { 'Idempotency-Key': `refund-${id}` });
      expect(lost.status).to.equal(503);
      expect(lost.body.error.code).to.equal('connector_unavailable');
      expect(lost.body.error.message).to.match(/repeat the same request/);
      const waiting = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
      expect(waiting.refundedAmount).to.equal(0);
      const { automaticRetryAt, ...pendingOperation } = waiting.pendingOperation;
      expect(pendingOperation).to.deep.equal({ kind: 'refund', amount: 3_000, inFlight: false });
      // The settlement worker would repeat it on its own 30 s after the answer was lost.
      expect(Date.parse(automaticRetryAt)).to.be.within(lostAt + 30_000, Date.now() + 30_000);
      expect(waiting.allowedActions).to.deep.equal(['refund']);
      const other = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 5_000 });
      expect(other.status).to.equal(409);
      expect(other.body.error.code).to.equal('invalid_state');
      expect(other.body.error.message).to.match(/refund of 3000/);
      const repeated = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 3_000 }, { 'Idempotency-Key': `refund-${id}` });
      expect(repeated.status, JSON.stringify(repeated.body)).to.equal(201);
      expect(repeated.body).to.include({ refundedAmount: 3_000, refundStatus: 'partial' });
      const keys = injector.operationKeys.filter((k) => k.kind === 'refund').slice(-2).map((k) => k.idempotencyKey);
      expect(keys[1]).to.equal(keys[0]);
      expect((await events(id)).map((e) => e.type)).to.deep.equal(['payment.captured', 'payment.partially_refunded']);
      expect((await merchant.sandbox.get(`/v1/payments/${id}`)).body.pendingOperation).to.equal(null);
      // Settled: the next refund is a new operation.
      const next = await merchant.sandbox.post(`/v1/payments/${id}/refund`, { amount: 5_000 });
      expect(next.body.refundedAmount).to.equal(8_000);
      expect(injector.operationKeys[injector.operationKeys.length - 1]!.idempotencyKey).to.not.equal(keys[0]);
    });

    it('unknown payment is 404; a payment of another environment is 404', async () => {
      expect((await merchant.sandbox.post('/v1/payments/pay_nope/capture', {})).status).to.equal(404);
      const r = await merchant.sandbox.post('/v1/payments', { amount: 500, card: card() });
      expect((await merchant.live.get(`/v1/payments/${r.body.id}`)).status).to.equal(404);
    });
  });

  describe('reads', () => {
    let m: Merchant;
    const ids: Record<string, string> = {};
    before(async () => {
      m = await service.merchant('Reads');
      ids.cheap = await createAccount(m.sandbox, 'cheap', 10, 'unreachable');
      ids.main = await createAccount(m.sandbox, 'main', 100);
      const customer = await m.sandbox.post('/v1/customers', { name: 'Joana Pereira', email: 'joana@example.com', document: '529.982.247-25' });
      ids.customer = customer.body.id;
      ids.a = (await m.sandbox.post('/v1/payments', { amount: 1000, card: card('approved', { last4: '4242', brand: 'mastercard' }), customerId: ids.customer })).body.id;
      ids.b = (await m.sandbox.post('/v1/payments', { amount: 2000, card: card('insufficient_funds'), initiator: 'merchant', mitType: 'unscheduled' })).body.id;
      ids.c = (await m.sandbox.post('/v1/payments', { amount: 3000, card: card(), captureMethod: 'manual', description: 'blue shoes', externalId: 'order-77' })).body.id;
    });

    it('lists newest first with totalCount on the first page, cursor paging and attempts summary', async () => {
      const first = await m.sandbox.get('/v1/payments?limit=2');
      expect(first.status).to.equal(200);
      expect(first.body).to.include({ object: 'list', hasMore: true, totalCount: 3 });
      expect(first.body.data.map((p: any) => p.id)).to.deep.equal([ids.c, ids.b]);
      expect(first.body.data[0].attemptsSummary).to.deep.include({ count: 2, hasFallback: true });
      expect(first.body.data[1].attemptsSummary.lastDeclineReason).to.equal('INSUFFICIENT_FUNDS');
      const second = await m.sandbox.get(`/v1/payments?limit=2&startingAfter=${ids.b}`);
      expect(second.body.data.map((p: any) => p.id)).to.deep.equal([ids.a]);
      expect(second.body.hasMore).to.equal(false);
      expect(second.body).to.not.have.property('totalCount');
    });

    it('filters by status, decline reason, amount, initiator, brand, method, fallback and connector', async () => {
      const q = async (query: string) => (await m.sandbox.get(`/v1/payments?${query}`)).body.data.map((p: any) => p.id);
      expect(await q('status=failed')).to.deep.equal([ids.b]);
      expect(await q('status=captured,authorized')).to.deep.equal([ids.c, ids.a]);
      expect(await q('declineReason=INSUFFICIENT_FUNDS')).to.deep.equal([ids.b]);
      expect(await q('amountMin=1500&amountMax=2500')).to.deep.equal([ids.b]);
      expect(await q('initiator=merchant')).to.deep.equal([ids.b]);
      expect(await q('brand=mastercard')).to.deep.equal([ids.a]);
      expect(await q('methodType=card')).to.have.length(3);
      expect(await q('hasFallback=true')).to.have.length(3);
      expect(await q('connector=sandbox')).to.have.length(3);
      expect(await q('createdAfter=2000-01-01T00:00:00Z&createdBefore=2000-01-02T00:00:00Z')).to.deep.equal([]);
      const view = (await m.sandbox.get(`/v1/payments/${ids.b}`)).body;
      const around = (ms: number) => encodeURIComponent(new Date(Date.parse(view.createdAt) + ms).toISOString());
      expect(await q(`createdAfter=${around(-1)}&createdBefore=${around(1)}`)).to.deep.equal([ids.b]);
      expect(await q(`createdBefore=${encodeURIComponent(view.createdAt)}`)).to.deep.equal([ids.a]);
      // An account matches the payments it processed or was tried for: every payment here fell back from the
      // unreachable account to the main one; an account no payment reached matches none.
      expect(await q(`connectorAccountId=${ids.main}`)).to.deep.equal([ids.c, ids.b, ids.a]);
      expect(await q(`connectorAccountId=${ids.cheap}`)).to.deep.equal([ids.c, ids.b, ids.a]);
      expect(await q(`connectorAccountId=ca_nobody`)).to.deep.equal([]);
    });

    it('searches card last digits, NSU, TID, authorization code, description and customer name/e-mail/document', async () => {
      const q = async (search: string) => (await m.sandbox.get(`/v1/payments?search=${encodeURIComponent(search)}`)).body.data.map((p: any) => p.id);
      expect(await q('4242')).to.deep.equal([ids.a]);
      expect(await q('order-77')).to.deep.equal([ids.c]);
      expect(await q('Joana')).to.deep.equal([ids.a]);
      expect(await q('joana@example.com')).to.deep.equal([ids.a]);
      expect(await q('529.982.247-25')).to.deep.equal([ids.a]);
      expect(await q('blue')).to.deep.equal([ids.c]);
      expect(await q(ids.b)).to.deep.equal([ids.b]);
      const full = (await m.sandbox.get(`/v1/payments/${ids.a}`)).body;
      for (const ref of [full.acquirer.nsu, full.acquirer.tid, full.acquirer.authorizationCode].filter(Boolean)) {
        expect(await q(ref)).to.include(ids.a);
      }
    });

    it('full view carries routing, attempts, operations, timeline and allowed actions', async () => {
      const view = await m.sandbox.get(`/v1/payments/${ids.c}`);
      expect(view.status).to.equal(200);
      expect(view.body.routing).to.deep.include({ strategy: 'direct', stopReason: 'approved', hasFallback: true, attemptCount: 2 });
      expect(view.body.allowedActions).to.deep.equal(['capture', 'void']);
      expect(view.body.timeline.map((t: any) => t.type)).to.deep.equal(['payment.authorized']);
      expect(view.body.operations).to.deep.equal([]);
    });

    it('summary: figures, previous period, hourly series up to 2 days, per connector account', async () => {
      expect((await m.sandbox.post(`/v1/payments/${ids.a}/refund`, { amount: 400 })).status).to.equal(201);
      const to = new Date(Date.now() + 60_000);
      const from = new Date(to.getTime() - 24 * 3600 * 1000);
      const s = await m.sandbox.get(`/v1/payments/summary?from=${from.toISOString()}&to=${to.toISOString()}`);
      expect(s.status, JSON.stringify(s.body)).to.equal(200);
      expect(s.body).to.include({ total: 3, approved: 2, declined: 1, approvalRateBps: 6666, capturedVolume: 1000, recoveredCount: 2, recoveredVolume: 4000 });
      expect(s.body).to.include({ averageTicket: 1000, refundedVolume: 400, refundCount: 1 });
      expect(s.body.previous.total).to.equal(0);
      // A window after the payments: they are all in its previous period of equal length.
      const later = new Date(Date.now() + 1_000);
      const after = await m.sandbox.get(`/v1/payments/summary?from=${later.toISOString()}&to=${new Date(later.getTime() + 2 * 3600 * 1000).toISOString()}`);
      expect(after.body.total).to.equal(0);
      expect(after.body.previous).to.include({ total: 3, approved: 2, declined: 1, capturedVolume: 1000 });
      expect(s.body.series.granularity).to.equal('hour');
      expect(s.body.series.points.length).to.be.within(24, 25);
      expect(s.body.series.points.reduce((n: number, p: any) => n + p.total, 0)).to.equal(3);
      const accounts = s.body.connectorAccounts as any[];
      expect(accounts.reduce((n, a) => n + a.attempts, 0)).to.equal(6);
      expect(accounts.find((a) => a.technicalFailures === 3)).to.exist;
      const month = await m.sandbox.get('/v1/payments/summary');
      expect(month.body.series.granularity).to.equal('day');
      expect(month.body.total).to.equal(3);
    });
  });

  describe("the acquirer's antifraud analysis (account config antifraudEnabled)", () => {
    let m: Merchant;
    let account: string;
    let customerId: string;
    const eventsOf = async (paymentId: string, assessmentId?: string) => {
      const rows = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ type: string; data: any }>>(
        'select type, data from events where object_id in (?, ?) order by id',
        [paymentId, assessmentId ?? paymentId],
      );
      return rows.map((r) => ({ type: r.type, data: typeof r.data === 'string' ? JSON.parse(r.data) : r.data }));
    };

    before(async () => {
      m = await service.merchant('Acquirer antifraud');
      const created = await m.sandbox.post('/v1/connector-accounts', {
        connectorSlug: 'sandbox', name: 'with antifraud', credentials: { merchantId: 'm_af', apiKey: 'sk_test' }, config: { antifraudEnabled: true },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      account = created.body.id;
      customerId = (await m.sandbox.post('/v1/customers', { name: 'Rita', email: 'rita@example.com', document: '52998224725' })).body.id;
    });

    it('an approved payment registers the analysis (accept: approve) and emits antifraud.assessment_completed before payment.captured', async () => {
      const r = await m.sandbox.post('/v1/payments', { amount: 1_500, card: card(), customerId });
      expect(r.body.status).to.equal('captured');
      const view = (await m.sandbox.get(`/v1/payments/${r.body.id}`)).body;
      expect(view.antifraud).to.have.length(1);
      const assessment = view.antifraud[0];
      expect(assessment).to.include({ object: 'antifraud_assessment', paymentId: r.body.id, origin: 'acquirer', provider: 'sandbox-acquirer-fraud', providerStatus: 'accept', recommendation: 'approve', score: 8, connectorAccountId: account });
      expect(assessment.id).to.match(/^afa_/);
      const evts = await eventsOf(r.body.id, assessment.id);
      expect(evts.map((e) => e.type)).to.deep.equal(['antifraud.assessment_completed', 'payment.captured']);
      expect(evts[0]!.data.object).to.deep.equal(assessment);
      // The payment's timeline lists its assessments' events with its own, in order.
      expect(view.timeline.map((t: { type: string }) => t.type)).to.deep.equal(['antifraud.assessment_completed', 'payment.captured']);
      expect(evts[1]!.data.previousAttributes).to.not.have.property('antifraud');
    });

    it('without customer data the analysis is skipped, and still registered and emitted (recommendation error)', async () => {
      const r = await m.sandbox.post('/v1/payments', { amount: 1_600, card: card() });
      expect(r.body.status).to.equal('captured');
      const [assessment] = (await m.sandbox.get(`/v1/payments/${r.body.id}`)).body.antifraud;
      expect(assessment).to.include({ providerStatus: 'skipped', recommendation: 'error', score: null });
      expect(assessment.triggeredRules).to.deep.equal(['missing_customer_data']);
      expect((await eventsOf(r.body.id, assessment.id)).map((e) => e.type)).to.deep.equal(['antifraud.assessment_completed', 'payment.captured']);
    });

    it('a declined verdict arrives as antifraud.assessment_completed (decline), then payment.failed', async () => {
      const r = await m.sandbox.post('/v1/payments', { amount: 1_700, card: card('stolen_card'), customerId });
      expect(r.body.status).to.equal('failed');
      const [assessment] = (await m.sandbox.get(`/v1/payments/${r.body.id}`)).body.antifraud;
      expect(assessment).to.include({ providerStatus: 'reject', recommendation: 'decline', score: 97 });
      expect((await eventsOf(r.body.id, assessment.id)).map((e) => e.type)).to.deep.equal(['antifraud.assessment_completed', 'payment.failed']);
    });

    it('a merchant-initiated payment gets no acquirer analysis (customer not present)', async () => {
      const r = await m.sandbox.post('/v1/payments', { amount: 1_750, card: card(), customerId, initiator: 'merchant', mitType: 'unscheduled' });
      expect(r.body.status).to.equal('captured');
      expect((await m.sandbox.get(`/v1/payments/${r.body.id}`)).body.antifraud).to.deep.equal([]);
      expect((await eventsOf(r.body.id)).map((e) => e.type)).to.deep.equal(['payment.captured']);
    });

    it('an account without antifraudEnabled asks for no analysis: none registered, no event', async () => {
      const r = await merchant.sandbox.post('/v1/payments', { amount: 1_800, card: card() });
      expect((await merchant.sandbox.get(`/v1/payments/${r.body.id}`)).body.antifraud).to.deep.equal([]);
      expect((await eventsOf(r.body.id)).map((e) => e.type)).to.deep.equal(['payment.captured']);
    });
  });

  describe('customers and saved payment methods', () => {
    it('validates CPF/CNPJ, creates, reads, updates and lists customers', async () => {
      const bad = await merchant.sandbox.post('/v1/customers', { name: 'X', document: '52998224724' });
      expect(bad.status).to.equal(422);
      expect(bad.body.error.param).to.equal('body.document');
      const created = await merchant.sandbox.post('/v1/customers', {
        name: 'ACME Ltda',
        email: 'finance@acme.example',
        document: '11.222.333/0001-81',
        address: { postalCode: '01310-100', line1: 'Av. Paulista', streetNumber: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body).to.include({ object: 'customer', document: '11222333000181', documentType: 'cnpj' });
      const id = created.body.id;
      expect((await merchant.sandbox.get(`/v1/customers/${id}`)).body.name).to.equal('ACME Ltda');
      const patched = await merchant.sandbox.patch(`/v1/customers/${id}`, { phone: '+55 11 99999-0000', email: null });
      expect(patched.body).to.include({ phone: '+55 11 99999-0000', email: null, name: 'ACME Ltda' });
      expect((await merchant.live.get(`/v1/customers/${id}`)).status).to.equal(404);
      const list = await merchant.sandbox.get('/v1/customers?limit=100');
      expect(list.body.data.map((c: any) => c.id)).to.include(id);
    });

    it('customer metadata is bounded by its values only, on create and update; a refused update changes nothing', async () => {
      const tooLong = await merchant.sandbox.post('/v1/customers', { name: 'Meta', metadata: { note: 'v'.repeat(513) } });
      expect(tooLong.status).to.equal(422);
      expect(tooLong.body.error.param).to.equal('body.metadata.note');
      const metadata = WIDE_METADATA;
      const created = await merchant.sandbox.post('/v1/customers', { name: 'Meta', metadata });
      expect(created.status, JSON.stringify(created.body).slice(0, 300)).to.equal(201);
      expect(created.body.metadata).to.deep.equal(metadata);
      const nested = await merchant.sandbox.patch(`/v1/customers/${created.body.id}`, { name: 'Changed', metadata: { note: { nested: true } } });
      expect(nested.status).to.equal(422);
      expect(nested.body.error.param).to.equal('body.metadata.note');
      const read = await merchant.sandbox.get(`/v1/customers/${created.body.id}`);
      expect(read.body).to.include({ name: 'Meta' });
      expect(read.body.metadata).to.deep.equal(metadata);
    });

    it('saves a card with verify (payment_method.verified), charges it by paymentMethodId, removes it', async () => {
      const customer = (await merchant.sandbox.post('/v1/customers', { name: 'Ana', document: '52998224725' })).body;
      const saved = await merchant.sandbox.post(`/v1/customers/${customer.id}/payment-methods`, { card: card(), verify: true });
      expect(saved.status, JSON.stringify(saved.body)).to.equal(201);
      expect(saved.body.id).to.match(/^pm_/);
      expect(saved.body.verification.status).to.equal('valid');
      expect(JSON.stringify(saved.body)).to.not.contain('tok_sandbox');
      const evts = await events(saved.body.id);
      expect(evts.map((e) => e.type)).to.deep.equal(['payment_method.verified']);
      expect(evts[0]!.data.object.verification.status).to.equal('valid');

      const invalid = await merchant.sandbox.post(`/v1/customers/${customer.id}/payment-methods`, { card: card('expired_card'), verify: true });
      expect(invalid.body.verification.status).to.equal('invalid');
      expect(invalid.body.verification.decline).to.include({ rawCode: '54', reason: 'EXPIRED_CARD', reversibility: 'irreversible', retryAction: 'RETRY_WITH_ANOTHER_CARD' });
      expect(saved.body.verification.decline).to.equal(null);
      expect((await events(invalid.body.id))[0]!.data.object.verification.status).to.equal('invalid');
      const refused = await merchant.sandbox.post('/v1/payments', { amount: 100, paymentMethodId: invalid.body.id });
      expect(refused.status).to.equal(422);
      expect(refused.body.error.code).to.equal('payment_method_invalid');

      const list = await merchant.sandbox.get(`/v1/customers/${customer.id}/payment-methods`);
      expect(list.body.data).to.have.length(2);

      const charge = await merchant.sandbox.post('/v1/payments', { amount: 4_500, paymentMethodId: saved.body.id, customerId: customer.id });
      expect(charge.status, JSON.stringify(charge.body)).to.equal(201);
      expect(charge.body).to.include({ status: 'captured', paymentMethodId: saved.body.id, customerId: customer.id });
      expect(charge.body.card.last4).to.equal('1111');
      // Without customerId the saved card's owner is the payment's customer, and the payment is found by the name.
      const byCard = await merchant.sandbox.post('/v1/payments', { amount: 4_600, paymentMethodId: saved.body.id });
      expect(byCard.body).to.include({ status: 'captured', customerId: customer.id });
      const found = await merchant.sandbox.get(`/v1/payments?search=Ana&limit=100`);
      expect(found.body.data.map((p: any) => p.id)).to.include(byCard.body.id);

      const removed = await merchant.sandbox.delete(`/v1/payment-methods/${saved.body.id}`);
      expect(removed.status).to.equal(200);
      const gone = await merchant.sandbox.post('/v1/payments', { amount: 100, paymentMethodId: saved.body.id });
      expect(gone.status).to.equal(422);
      expect(gone.body.error.code).to.equal('resource_missing');
    });

    it('a verification with no account able to answer is unavailable (payment_method.verified says so); the card stays chargeable later', async () => {
      const m = await service.merchant('Verify unavailable');
      await createAccount(m.sandbox, 'down', 10, 'unreachable');
      const customer = (await m.sandbox.post('/v1/customers', { name: 'Caio' })).body;
      const saved = await m.sandbox.post(`/v1/customers/${customer.id}/payment-methods`, { card: card(), verify: true });
      expect(saved.status, JSON.stringify(saved.body)).to.equal(201);
      expect(saved.body.verification.status).to.equal('unavailable');
      expect((await events(saved.body.id)).map((e) => [e.type, e.data.object.verification.status])).to.deep.equal([['payment_method.verified', 'unavailable']]);
      const up = await createAccount(m.sandbox, 'up', 20);
      const charge = await m.sandbox.post('/v1/payments', { amount: 700, paymentMethodId: saved.body.id });
      expect(charge.body.status).to.equal('captured');
      // Zero-value authorizations feed the accounts' health like payments do: the down account's failure, and
      // (verifying again, now that one answers) the up account's answer, then the charge.
      await m.sandbox.post(`/v1/customers/${customer.id}/payment-methods`, { card: card('insufficient_funds'), verify: true });
      const health = async (id: string) => (await m.sandbox.get(`/v1/connector-accounts/${id}`)).body.health.recentCalls;
      const down = (await m.sandbox.get('/v1/connector-accounts')).body.data.find((a: any) => a.name === 'down').id;
      expect(await health(down)).to.include({ total: 3, technicalFailures: 3 });
      expect(await health(up)).to.include({ total: 2, approved: 1 });
    });

    it('a saved card pinned to an account of another environment is 404 and saves nothing', async () => {
      const m = await service.merchant('Saved card pinned elsewhere');
      const live = await createAccount(m.live, 'live-only', 10);
      const customer = (await m.sandbox.post('/v1/customers', { name: 'Davi' })).body;
      const r = await m.sandbox.post(`/v1/customers/${customer.id}/payment-methods`, { card: card('approved', { connectorAccountId: live }) });
      expect(r.status, JSON.stringify(r.body)).to.equal(404);
      expect((await m.sandbox.get(`/v1/customers/${customer.id}/payment-methods`)).body.data).to.deep.equal([]);
    });

    it('refuses card numbers on saved payment methods too', async () => {
      const customer = (await merchant.sandbox.post('/v1/customers', { name: 'Bia' })).body;
      const r = await merchant.sandbox.post(`/v1/customers/${customer.id}/payment-methods`, { card: { ...card(), number: '4111111111111111' } });
      expect(r.status).to.equal(422);
      expect(r.body.error.code).to.equal('sensitive_card_data');
      const asToken = await merchant.sandbox.post(`/v1/customers/${customer.id}/payment-methods`, { card: { ...card(), token: '4111111111111111' } });
      expect(asToken.status).to.equal(422);
      expect(asToken.body.error).to.include({ code: 'sensitive_card_data', param: 'body.card.token' });
      expect((await merchant.sandbox.get(`/v1/customers/${customer.id}/payment-methods`)).body.data).to.deep.equal([]);
    });
  });

  describe('card testing (contract.md 7)', () => {
    it('after 10 declined card payments from one clientIp, new card payments from it are refused with 403', async () => {
      const m = await service.merchant('Card testing');
      await createAccount(m.sandbox, 'main', 100);
      for (let i = 0; i < 10; i++) {
        const r = await m.sandbox.post('/v1/payments', { amount: 100 + i, card: card('insufficient_funds'), clientIp: '203.0.113.9' });
        expect(r.status).to.equal(201);
      }
      const blocked = await m.sandbox.post('/v1/payments', { amount: 100, card: card(), clientIp: '203.0.113.9' });
      expect(blocked.status).to.equal(403);
      expect(blocked.body.error.code).to.equal('blocked_by_security_policy');
      const other = await m.sandbox.post('/v1/payments', { amount: 100, card: card(), clientIp: '203.0.113.10' });
      expect(other.body.status).to.equal('captured');
    });
  });

  describe('production allowance and health', () => {
    it('live payments count toward the production allowance, declined ones too; sandbox never', async () => {
      const count = async () => {
        const rows = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ n: number }>>(
          'select count(*)::int8 as n from production_payment_usage where organization_id = ?',
          [merchant.organizationId],
        );
        return Number(rows[0]!.n);
      };
      const before = await count();
      await merchant.sandbox.post('/v1/payments', { amount: 100, card: card() });
      expect(await count()).to.equal(before);
      const live = await merchant.live.post('/v1/payments', { amount: 100, card: card() });
      expect(live.body.status).to.equal('captured');
      expect(live.body.livemode).to.equal(true);
      await merchant.live.post('/v1/payments', { amount: 100, card: card('insufficient_funds') });
      expect(await count()).to.equal(before + 2);
      // A payment that fell back counts once: fallback attempts do not consume the allowance.
      const fallback = await service.merchant('Allowance with fallback');
      await createAccount(fallback.live, 'down', 10, 'unreachable');
      await createAccount(fallback.live, 'up', 20);
      const fell = await fallback.live.post('/v1/payments', { amount: 100, card: card() });
      expect(fell.body.attempts).to.have.length(2);
      const used = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ n: number }>>(
        'select count(*)::int8 as n from production_payment_usage where organization_id = ?',
        [fallback.organizationId],
      );
      expect(Number(used[0]!.n)).to.equal(1);
    });

    it('GET /health reports the decline table coverage', async () => {
      const health = await service.client().get('/health');
      expect(health.status).to.equal(200);
      const coverage = health.body.declineCodes;
      expect(coverage.fallbackReason).to.equal('UNMAPPED_DECLINE');
      expect(coverage.codes).to.equal(coverage.declineCodes + coverage.approvalCodes);
      expect(coverage.reversible + coverage.irreversible).to.equal(coverage.declineCodes);
      expect(Object.values(coverage.byRetryAction as Record<string, number>).reduce((a, b) => a + b, 0)).to.equal(coverage.declineCodes);
      expect(coverage.abecsCodes).to.be.at.least(60);
      expect(coverage.canonicalReasons).to.be.at.least(30);
    });
  });
});
