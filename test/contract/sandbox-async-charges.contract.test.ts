import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { ReportChargeOutcomeRequest, ReportFraudDecisionRequest } from '../../infrastructure/grpc/generated/core/v1/core';
import { CoreNotificationsService, ReportFraudDecisionRequest_Decision } from '../../infrastructure/grpc/generated/core/v1/core';
import { GrpcAcquirerGateway } from '../../infrastructure/grpc/grpc-acquirer.gateway';
import { startGrpcServer, type RunningGrpcServer } from '../../infrastructure/grpc/grpc-server';
import { startSandboxAcquirer } from '../../infrastructure/connectors/sandbox/sandbox-acquirer.server';
import { crc16Ccitt } from '../../infrastructure/connectors/sandbox/sandbox-payment-codes';

const credentials = { values: { merchantId: 'merchant_async', apiKey: 'sk_test' }, config: {} };
const key = () => `att_${randomUUID()}`;

/** Modulo-10 check digit (FEBRABAN), written independently of the sandbox's code. */
function mod10(digits: string): number {
  let sum = 0;
  [...digits].reverse().forEach((d, i) => {
    const p = Number(d) * (i % 2 === 0 ? 2 : 1);
    sum += Math.floor(p / 10) + (p % 10);
  });
  return (10 - (sum % 10)) % 10;
}

describe('sandbox acquirer: Pix, boleto, queries, 3DS, tokenization and fraud decisions (real gRPC)', () => {
  let sandbox: Awaited<ReturnType<typeof startSandboxAcquirer>>;
  let core: RunningGrpcServer;
  let gateway: GrpcAcquirerGateway;
  const reports: ReportFraudDecisionRequest[] = [];
  const chargeReports: ReportChargeOutcomeRequest[] = [];

  before(async () => {
    core = await startGrpcServer({
      services: [
        {
          definition: CoreNotificationsService,
          implementation: {
            reportChargeOutcome: (call: { request: ReportChargeOutcomeRequest }, callback: (e: null, r: { accepted: boolean }) => void) => {
              chargeReports.push(call.request);
              callback(null, { accepted: true });
            },
            reportFraudDecision: (call: { request: ReportFraudDecisionRequest }, callback: (e: null, r: { accepted: boolean }) => void) => {
              reports.push(call.request);
              callback(null, { accepted: true });
            },
          },
        },
      ],
    });
    sandbox = await startSandboxAcquirer({ fraudReviewDelayMs: 30, coreNotificationsAddress: core.address });
    gateway = new GrpcAcquirerGateway(sandbox.address, { deadlineMs: 2_000 });
  });

  after(async () => {
    gateway.close();
    await sandbox.stop();
    await core.stop(100);
  });

  it('issues a Pix charge with a BR Code whose CRC16 checks, then settles it by simulation', async () => {
    const pix = await gateway.createPixCharge({ credentials, idempotencyKey: key(), paymentId: 'pay_pix', amount: 12345, expiresInSeconds: 3600 });
    expect(pix.status).to.equal('awaiting_payment');
    const code = pix.pix!.qrCode;
    expect(code.startsWith('000201')).to.equal(true);
    expect(code).to.include('br.gov.bcb.pix').and.include('5406123.45');
    expect(code.slice(-4)).to.equal(crc16Ccitt(code.slice(0, -4)));
    expect(Date.parse(pix.expiresAt!)).to.be.greaterThan(Date.now());

    const paid = await gateway.simulateCharge({ credentials, acquirerPaymentId: pix.acquirerPaymentId, outcome: 'paid' });
    expect(paid.applied).to.equal(true);
    expect(paid.charge).to.include({ status: 'paid', paidAmount: 12345 });
    const again = await gateway.simulateCharge({ credentials, acquirerPaymentId: pix.acquirerPaymentId, outcome: 'expired' });
    expect(again.applied, 'not awaiting payment any more').to.equal(false);
    expect((await gateway.queryCharge({ credentials, acquirerPaymentId: pix.acquirerPaymentId })).status).to.equal('paid');
    expect((await gateway.cancelCharge({ credentials, idempotencyKey: key(), acquirerPaymentId: pix.acquirerPaymentId })).status, 'payer just paid').to.equal('paid');
  });

  it('reports a settled charge to the core (ReportChargeOutcome) with the idempotency key that created it', async () => {
    const idempotencyKey = key();
    const pix = await gateway.createPixCharge({ credentials, idempotencyKey, paymentId: 'pay_report', amount: 700, expiresInSeconds: 600 });
    await gateway.simulateCharge({ credentials, acquirerPaymentId: pix.acquirerPaymentId, outcome: 'paid' });
    for (let i = 0; i < 100 && !chargeReports.some((r) => r.acquirerPaymentId === pix.acquirerPaymentId); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    const report = chargeReports.find((r) => r.acquirerPaymentId === pix.acquirerPaymentId);
    expect(report).to.deep.include({ idempotencyKey, connectorSlug: 'sandbox', paidAmount: 700 });
    expect(report!.reportId).to.match(/^rep_/);
  });

  it('refunds a paid Pix in parts up to its amount (devolução) and declines a boleto refund as data', async () => {
    const pix = await gateway.createPixCharge({ credentials, idempotencyKey: key(), paymentId: 'pay_refund', amount: 1000, expiresInSeconds: 600 });
    expect((await gateway.refund({ credentials, idempotencyKey: key(), acquirerPaymentId: pix.acquirerPaymentId, amount: 100 })).status, 'not paid yet').to.equal('declined');
    await gateway.simulateCharge({ credentials, acquirerPaymentId: pix.acquirerPaymentId, outcome: 'paid' });
    const refundKey = key();
    expect(await gateway.refund({ credentials, idempotencyKey: refundKey, acquirerPaymentId: pix.acquirerPaymentId, amount: 400 })).to.include({ status: 'approved', amount: 400 });
    expect(await gateway.refund({ credentials, idempotencyKey: refundKey, acquirerPaymentId: pix.acquirerPaymentId, amount: 400 })).to.include({ status: 'approved', amount: 400 });
    expect((await gateway.refund({ credentials, idempotencyKey: key(), acquirerPaymentId: pix.acquirerPaymentId, amount: 700 })).status, 'beyond what remains').to.equal('declined');
    expect(await gateway.refund({ credentials, idempotencyKey: key(), acquirerPaymentId: pix.acquirerPaymentId, amount: 0 })).to.include({ status: 'approved', amount: 600 });
    const boleto = await gateway.createBoleto({ credentials, idempotencyKey: key(), paymentId: 'pay_bol_refund', amount: 900, dueDate: '2026-12-10' });
    await gateway.simulateCharge({ credentials, acquirerPaymentId: boleto.acquirerPaymentId, outcome: 'paid' });
    expect(await gateway.refund({ credentials, idempotencyKey: key(), acquirerPaymentId: boleto.acquirerPaymentId, amount: 900 })).to.include({ status: 'declined', rawCode: 'refund_not_supported' });
  });

  it('issues a boleto with a 44-digit barcode and a 47-digit digitable line whose check digits hold', async () => {
    const boleto = await gateway.createBoleto({ credentials, idempotencyKey: key(), paymentId: 'pay_bol', amount: 9990, dueDate: '2026-12-10' });
    const { barcode, digitableLine } = boleto.boleto!;
    expect(barcode).to.match(/^\d{44}$/);
    expect(digitableLine).to.match(/^\d{47}$/);
    expect(Number(digitableLine[9])).to.equal(mod10(digitableLine.slice(0, 9)));
    expect(Number(digitableLine[20])).to.equal(mod10(digitableLine.slice(10, 20)));
    expect(Number(digitableLine[31])).to.equal(mod10(digitableLine.slice(21, 31)));
    expect(digitableLine.slice(-10)).to.equal('0000009990');
    expect(barcode.slice(9, 19)).to.equal('0000009990');

    const canceled = await gateway.cancelCharge({ credentials, idempotencyKey: key(), acquirerPaymentId: boleto.acquirerPaymentId });
    expect(canceled.status).to.equal('canceled');
    expect((await gateway.simulateCharge({ credentials, acquirerPaymentId: boleto.acquirerPaymentId, outcome: 'paid' })).applied).to.equal(false);
  });

  it('replays a charge creation for a repeated idempotency key', async () => {
    const input = { credentials, idempotencyKey: key(), paymentId: 'pay_pix2', amount: 500, expiresInSeconds: 600 };
    const first = await gateway.createPixCharge(input);
    expect(await gateway.createPixCharge(input)).to.deep.equal(first);
  });

  it('answers a query by the idempotency key of an authorization (how an unknown outcome is resolved)', async () => {
    const idempotencyKey = key();
    const auth = await gateway.authorize({
      credentials, idempotencyKey, paymentId: 'pay_q', source: { type: 'card', token: 'tok_sandbox_approved' }, amount: 700, currency: 'BRL', capture: true,
    });
    expect(auth.status).to.equal('approved');
    const byKey = await gateway.queryCharge({ credentials, idempotencyKey });
    expect(byKey).to.include({ status: 'captured', paidAmount: 700 });
    expect((await gateway.queryCharge({ credentials, idempotencyKey: key() })).status).to.equal('not_found');
  });

  it('runs a 3DS challenge for the three_ds token and authorizes once authenticated', async () => {
    const card = { type: 'card' as const, token: 'tok_sandbox_three_ds' };
    const first = await gateway.authenticate3ds({ credentials, idempotencyKey: key(), paymentId: 'pay_3ds', card, amount: 100, currency: 'BRL' });
    expect(first.status).to.equal('challenge_required');
    if (first.status !== 'challenge_required') return;
    const resumed = await gateway.authenticate3ds({
      credentials, idempotencyKey: key(), paymentId: 'pay_3ds', card, amount: 100, currency: 'BRL', authenticationId: first.authenticationId,
    });
    expect(resumed).to.include({ status: 'authenticated', authenticationId: first.authenticationId });
    const auth = await gateway.authorize({
      credentials, idempotencyKey: key(), paymentId: 'pay_3ds', source: card, amount: 100, currency: 'BRL', capture: true,
      threeDsAuthenticationId: first.authenticationId,
    });
    expect(auth.status).to.equal('approved');
    const frictionless = await gateway.authenticate3ds({
      credentials, idempotencyKey: key(), paymentId: 'pay_f', card: { type: 'card', token: 'tok_visa' }, amount: 100, currency: 'BRL',
    });
    expect(frictionless.status).to.equal('authenticated');
  });

  describe('browser tokenization through the sandbox vault', () => {
    const card = (number: string, extra: Record<string, unknown> = {}) => ({ number, cvv: '123', expMonth: 12, expYear: 2031, holderName: 'Maria Silva', ...extra });
    const tokenize = (url: string, secret: string, body: unknown) =>
      fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Service-Client-Secret': secret }, body: JSON.stringify(body) });
    const session = () => gateway.createTokenizationSession({ credentials, paymentId: 'pay_tok', clientSecret: 'pay_tok_secret_abc', ttlSeconds: 600 });

    it('opens a session at the vault (not the payment API) and turns a test number into its scenario token', async () => {
      const s = await session();
      expect(s.sessionId).to.match(/^tks_/);
      expect(s.tokenizeUrl).to.equal(`${sandbox.vaultUrl}/sessions/${s.sessionId}/tokenize`);
      expect(Date.parse(s.expiresAt)).to.be.greaterThan(Date.now());
      const response = await tokenize(s.tokenizeUrl, 'pay_tok_secret_abc', card('4000000000009995'));
      expect(response.status).to.equal(201);
      const token = (await response.json()) as { token: string; brand: string; bin: string; last4: string };
      expect(token).to.include({ brand: 'visa', bin: '400000', last4: '9995' });
      expect(token.token).to.match(/^tok_sandbox_insufficient_funds_[0-9a-f]+$/);
      const auth = await gateway.authorize({ credentials, idempotencyKey: key(), paymentId: 'pay_tok', source: { type: 'card', token: token.token }, amount: 100, currency: 'BRL', capture: true });
      expect(auth).to.include({ status: 'declined', rawCode: '51' });
    });

    it('spends the session after one card, and refuses another client secret', async () => {
      const s = await session();
      expect((await tokenize(s.tokenizeUrl, 'someone_else', card('4111111111111111'))).status).to.equal(401);
      expect((await tokenize(s.tokenizeUrl, 'pay_tok_secret_abc', card('4111111111111111'))).status).to.equal(201);
      const again = await tokenize(s.tokenizeUrl, 'pay_tok_secret_abc', card('4111111111111111'));
      expect(again.status).to.equal(409);
      expect(((await again.json()) as { error: { code: string } }).error.code).to.equal('session_spent');
    });

    it('refuses Luhn-invalid numbers, bad CVVs and expired cards (422), without spending the session', async () => {
      const s = await session();
      const luhn = await tokenize(s.tokenizeUrl, 'pay_tok_secret_abc', card('4111111111111112'));
      expect(luhn.status).to.equal(422);
      expect(((await luhn.json()) as { error: { param: string } }).error.param).to.equal('number');
      expect((await tokenize(s.tokenizeUrl, 'pay_tok_secret_abc', card('4111111111111111', { cvv: '12' }))).status).to.equal(422);
      expect((await tokenize(s.tokenizeUrl, 'pay_tok_secret_abc', card('4111111111111111', { expYear: 2020 }))).status).to.equal(422);
      expect((await tokenize(s.tokenizeUrl, 'pay_tok_secret_abc', card('4111111111111111'))).status).to.equal(201);
    });

    it('answers CORS preflights so the checkout page can post cross-origin', async () => {
      const s = await session();
      const preflight = await fetch(s.tokenizeUrl, { method: 'OPTIONS' });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get('access-control-allow-headers')).to.include('Service-Client-Secret');
    });
  });

  it('resolves fraud_review_accept/reject after the delay: reported to CoreNotifications and visible by query', async () => {
    const accept = await gateway.authorize({
      credentials, idempotencyKey: key(), paymentId: 'pay_fa', source: { type: 'card', token: 'tok_sandbox_fraud_review_accept' }, amount: 100, currency: 'BRL', capture: false,
    });
    const reject = await gateway.authorize({
      credentials, idempotencyKey: key(), paymentId: 'pay_fr', source: { type: 'card', token: 'tok_sandbox_fraud_review_reject' }, amount: 100, currency: 'BRL', capture: false,
    });
    if (accept.status !== 'approved' || reject.status !== 'approved') expect.fail('both are authorized');
    for (let i = 0; i < 100 && reports.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    const byPayment = new Map(reports.map((r) => [r.acquirerPaymentId, r]));
    expect(byPayment.get(accept.references.acquirerPaymentId)).to.include({ decision: ReportFraudDecisionRequest_Decision.ACCEPTED, connectorSlug: 'sandbox' });
    expect(byPayment.get(reject.references.acquirerPaymentId)).to.include({ decision: ReportFraudDecisionRequest_Decision.REJECTED });
    expect((await gateway.queryCharge({ credentials, acquirerPaymentId: reject.references.acquirerPaymentId })).status).to.equal('voided');
    expect((await gateway.queryCharge({ credentials, acquirerPaymentId: accept.references.acquirerPaymentId })).status).to.equal('authorized');
  });
});
