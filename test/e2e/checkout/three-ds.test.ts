import { expect } from 'chai';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import type { ProductServices } from '../../../infrastructure/main/modules';
import type { ApiResult } from '../../support/api-client';
import { edge, node, threeDsGraph } from '../../support/builders/flow-graph.builder';

const MINUTE = 60_000;

// Authentication values a test can search the whole database for afterwards.
const CAVV = 'AAABCZIhcQAAAABZlyFxAAAAAAA3ds';
const XID = 'MDAwMDAwMDAwMDAwMDAwMzIyNzY3ds';

/**
 * 3-D Secure and debit through the REST edge (issue 24 item 4): a published flow with a three_ds node pauses the
 * checkout in requires_action (nextAction three_ds, a 10-minute deadline kept on the run's wait row), the buyer's
 * result resumes the run through ResumeFlowRun with the exit the ECI decides, CAVV and XID reach the acquirer and
 * nowhere else, and the deadline closes the payment (410 afterwards). PostgreSQL, the sandbox vault and acquirer over
 * HTTP and gRPC, a controllable clock; background workers off, so the test plays the waits worker.
 */
describe('3DS and debit in the transparent checkout (REST edge, sandbox over gRPC)', function () {
  this.timeout(120_000);
  const clock = new ManualClock(new Date('2026-11-26T12:00:00.000Z'));
  let service: TestService<ProductServices>;
  let merchant: Merchant;
  let accountId: string;

  const pub = (secret: string, extra: Record<string, string> = {}) => ({ 'Service-Client-Secret': secret, ...extra });
  const key = () => `k_${Math.random().toString(36).slice(2)}`;
  const db = () => service.core.orm.em.fork({ useContext: false });
  const eventTypes = async (id: string) =>
    (await db().execute<Array<{ type: string }>>('select type from events where object_id = ? order by sequence nulls last, id', [id])).map((r) => r.type);

  const createCheckout = async (body: Record<string, unknown> = {}, m: Merchant = merchant) => {
    const r = await m.sandbox.post('/v1/payments', { amount: 9_900, ...body });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return { id: r.body.id as string, secret: r.body.clientSecret as string };
  };

  const tokenize = async (id: string, secret: string, number: string) => {
    const session = await service.client().post(`/v1/public/payments/${id}/tokenization-session`, undefined, pub(secret));
    expect(session.status, JSON.stringify(session.body)).to.equal(201);
    const vault = await fetch(session.body.tokenizeUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Service-Client-Secret': secret },
      body: JSON.stringify({ number, cvv: '123', expMonth: 12, expYear: 2030, holderName: 'Ana Souza' }),
    });
    expect(vault.status).to.equal(201);
    return (await vault.json()) as { token: string; brand: string; bin: string; last4: string };
  };

  const confirmPublic = async (id: string, secret: string, number: string): Promise<ApiResult> =>
    service.client().post(`/v1/public/payments/${id}/confirm`, { card: await tokenize(id, secret, number) }, pub(secret, { 'Idempotency-Key': key() }));

  const threeDs = (id: string, secret: string, body: Record<string, unknown>): Promise<ApiResult> =>
    service.client().post(`/v1/public/payments/${id}/three-ds`, body, pub(secret, { 'Idempotency-Key': key() }));

  /** A checkout confirmed with this card, paused at the three_ds node. */
  const pausedAtThreeDs = async (number: string, body: Record<string, unknown> = {}) => {
    const { id, secret } = await createCheckout(body);
    const confirmed = await confirmPublic(id, secret, number);
    expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(201);
    expect(confirmed.body.status).to.equal('requires_action');
    return { id, secret, confirmed };
  };

  before(async () => {
    service = await startTestService({ clock, transport: 'in-process', workers: false });
    merchant = await service.merchant('Loja 3DS');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
    accountId = account.body.id;
    const flow = await merchant.sandbox.post('/v1/flows', { name: 'Authenticate first', graph: threeDsGraph(accountId) });
    expect(flow.status, JSON.stringify(flow.body)).to.equal(201);
    const published = await merchant.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {});
    expect(published.status, JSON.stringify(published.body)).to.equal(200);
  });
  after(async () => {
    await service?.stop();
  });

  it('the catalog shows three_ds and debit_card as capabilities the core processes', async () => {
    const account = await merchant.sandbox.get(`/v1/connector-accounts/${accountId}`);
    expect(account.body.effectiveCapabilities).to.include.members(['three_ds', 'debit_card']);
  });

  it('a three_ds node without every exit wired is refused at publishing, naming the port', async () => {
    const graph = threeDsGraph(accountId);
    const flow = await merchant.sandbox.post('/v1/flows', { name: 'Half wired', graph: { ...graph, edges: graph.edges.filter((e) => e.id !== 'auth-failed') } });
    const refused = await merchant.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {});
    expect(refused.status).to.equal(422);
    expect(JSON.stringify(refused.body.error)).to.match(/Port failed of node auth/);
  });

  it('pauses in requires_action with nextAction three_ds and a 10-minute deadline on the wait row; nothing sent to the acquirer', async () => {
    const { id, secret, confirmed } = await pausedAtThreeDs('4000000000003220');
    const deadline = new Date(clock.now().getTime() + 10 * MINUTE).toISOString();
    expect(confirmed.body.nextAction).to.deep.equal({ type: 'three_ds', expiresAt: deadline, resultUrl: `/v1/public/payments/${id}/three-ds` });
    expect(confirmed.body.actionExpiresAt).to.equal(deadline);
    const view = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
    expect(view).to.deep.include({ status: 'requires_action', attempts: [] });
    expect(view.nextAction).to.deep.include({ type: 'three_ds', expiresAt: deadline });
    const [wait] = await db().execute<Array<{ kind: string; due_at: Date }>>('select kind, due_at from flow_run_waits where payment_id = ?', [id]);
    expect(wait!.kind).to.equal('three_ds_result');
    expect(new Date(wait!.due_at).toISOString()).to.equal(deadline);
    const publicView = await service.client().get(`/v1/public/payments/${id}`, pub(secret));
    expect(publicView.body.nextAction).to.include({ type: 'three_ds' });
  });

  it('an authenticated result (Visa ECI 05) resumes the flow: captured; CAVV and XID are nowhere in the database', async () => {
    const { id, secret } = await pausedAtThreeDs('4000000000003220');
    const done = await threeDs(id, secret, { outcome: 'success', eci: '05', cavv: CAVV, xid: XID, version: '2.2.0', referenceId: '3ds_ref_1' });
    expect(done.status, JSON.stringify(done.body)).to.equal(201);
    expect(done.body).to.deep.include({ status: 'captured', nextAction: null });
    const view = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
    expect(view.attempts).to.have.length(1);
    expect(view.flowExecution.steps.map((s: any) => [s.nodeId, s.port])).to.deep.equal([
      ['trigger', 'next'],
      ['auth', 'authenticated'],
      ['charge', 'approved'],
      ['approve', null],
    ]);
    expect(await eventTypes(id)).to.deep.equal(['payment.captured']);
    expect(JSON.stringify(view)).not.to.match(new RegExp(`${CAVV}|${XID}`));

    // Every row of every table of the service's schema, as text: the authentication values are in none of them.
    const tables = await db().execute<Array<{ table_name: string }>>(
      "select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'",
    );
    expect(tables.map((t) => t.table_name)).to.include.members(['payments', 'flow_run_waits', 'events']);
    for (const { table_name } of tables) {
      const [hit] = await db().execute<Array<{ n: number }>>(`select count(*)::int as n from "${table_name}" t where t::text like ? or t::text like ?`, [`%${CAVV}%`, `%${XID}%`]);
      expect(hit!.n, `table ${table_name}`).to.equal(0);
    }
  });

  it('the CAVV reaches the acquirer over gRPC: the sandbox refuses an authenticated result without it (authentication_required)', async () => {
    const { id, secret } = await pausedAtThreeDs('4000000000003220');
    const done = await threeDs(id, secret, { outcome: 'success', eci: '05' });
    expect(done.body.status).to.equal('failed');
    const view = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
    expect(view.attempts).to.have.length(1);
    expect(view.error).to.include({ code: 'authentication_required' });
  });

  it('a failed authentication (Visa ECI 07, or outcome failure) leaves by failed: the flow declines, the acquirer is not called', async () => {
    const { id, secret } = await pausedAtThreeDs('4000000000003220');
    const failed = await threeDs(id, secret, { outcome: 'success', eci: '07', cavv: CAVV });
    expect(failed.status, JSON.stringify(failed.body)).to.equal(201);
    expect(failed.body.status).to.equal('failed');
    const view = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
    expect(view.attempts).to.deep.equal([]);
    expect(view.flowExecution.steps.map((s: any) => [s.nodeId, s.port])).to.deep.equal([
      ['trigger', 'next'],
      ['auth', 'failed'],
      ['decline', null],
    ]);
    expect(await eventTypes(id)).to.deep.equal(['payment.failed']);

    const second = await pausedAtThreeDs('4111111111111111');
    const refused = await threeDs(second.id, second.secret, { outcome: 'failure' });
    expect(refused.body.status).to.equal('failed');
  });

  it('409 when the payment does not await 3DS; 422 for an invalid body, which changes nothing', async () => {
    const { id, secret } = await createCheckout();
    const notYet = await threeDs(id, secret, { outcome: 'success', eci: '05' });
    expect(notYet.status).to.equal(409);
    expect(notYet.body.error.code).to.equal('invalid_state');

    const paused = await pausedAtThreeDs('4000000000003220');
    const invalid = await threeDs(paused.id, paused.secret, { outcome: 'maybe', cavv: 'x'.repeat(65) });
    expect(invalid.status).to.equal(422);
    expect(invalid.body.error).to.include.keys('code', 'message', 'param', 'requestId');
    expect((await merchant.sandbox.get(`/v1/payments/${paused.id}`)).body.status).to.equal('requires_action');
    const done = await threeDs(paused.id, paused.secret, { outcome: 'success', eci: '05', cavv: CAVV });
    expect(done.body.status).to.equal('captured');
    const again = await threeDs(paused.id, paused.secret, { outcome: 'success', eci: '05', cavv: CAVV });
    expect(again.status).to.equal(409);
  });

  it('after the authentication time the waits worker closes the payment (canceled) and the result is refused with 410', async () => {
    const { id, secret } = await pausedAtThreeDs('4000000000003220');
    const waits = service.services.flowRunWaits;
    expect((await waits.claim(10)).map((w) => w.paymentId), 'nothing is due before the deadline').not.to.include(id);
    clock.advance(10 * MINUTE + 1_000);
    const claimed = (await waits.claim(10)).filter((w) => w.paymentId === id);
    expect(claimed).to.have.length(1);
    expect(await waits.fire(claimed[0]!)).to.equal(true);
    const view = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
    expect(view).to.deep.include({ status: 'canceled', attempts: [], nextAction: null });
    expect(view.error).to.include({ code: 'authentication_expired' });
    expect(await eventTypes(id)).to.deep.equal(['payment.canceled']);
    const late = await threeDs(id, secret, { outcome: 'success', eci: '05', cavv: CAVV });
    expect(late.status).to.equal(410);
    expect(late.body.error.code).to.equal('payment_expired');
  });

  it('a result that arrives after the deadline, before the worker ran, closes the payment itself and answers 410', async () => {
    const { id, secret } = await pausedAtThreeDs('4000000000003220');
    clock.advance(10 * MINUTE);
    const late = await threeDs(id, secret, { outcome: 'success', eci: '05', cavv: CAVV });
    expect(late.status).to.equal(410);
    expect((await merchant.sandbox.get(`/v1/payments/${id}`)).body.status).to.equal('canceled');
    expect(await eventTypes(id)).to.deep.equal(['payment.canceled']);
  });

  describe('debit_card', () => {
    const debit = { methodType: 'debit_card', installments: 1, captureMethod: 'automatic' };

    it('is charged only after the cardholder authenticates: requires_action, then captured on an authenticated result', async () => {
      const { id, secret } = await pausedAtThreeDs('4111111111111111', debit);
      expect((await merchant.sandbox.get(`/v1/payments/${id}`)).body.attempts).to.deep.equal([]);
      const done = await threeDs(id, secret, { outcome: 'success', eci: '05', cavv: CAVV });
      expect(done.body.status, JSON.stringify((await merchant.sandbox.get(`/v1/payments/${id}`)).body)).to.equal('captured');
      const view = (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
      expect(view).to.deep.include({ methodType: 'debit_card', capturedAmount: 9_900 });
      expect(view.attempts).to.have.length(1);
    });

    it('is not charged when 3DS is unavailable (attempted ECI, or the server confirm), even where the flow leads to the acquirer', async () => {
      const attempted = await pausedAtThreeDs('4111111111111111', debit);
      const unavailable = await threeDs(attempted.id, attempted.secret, { outcome: 'success', eci: '06' });
      expect(unavailable.body.status).to.equal('failed');
      const view = (await merchant.sandbox.get(`/v1/payments/${attempted.id}`)).body;
      expect(view.attempts).to.deep.equal([]);
      expect(view.error).to.include({ code: 'authentication_required' });

      const { id } = await createCheckout(debit);
      const server = await merchant.sandbox.post(`/v1/payments/${id}/confirm`, { card: { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111' } }, { 'Idempotency-Key': key() });
      expect(server.status, JSON.stringify(server.body)).to.equal(201);
      expect(server.body.status).to.equal('failed');
      expect(server.body.attempts).to.deep.equal([]);
    });

    it('without a published flow with a three_ds node at confirm (unpublished since creation), confirm is refused with 422 and changes nothing', async () => {
      const other = await service.merchant('Loja sem 3DS');
      const account = await other.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm2', apiKey: 'k2' } });
      expect(account.status).to.equal(201);
      const publish = async (name: string, graph: object) => {
        const flow = await other.sandbox.post('/v1/flows', { name, graph });
        expect((await other.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {})).status).to.equal(200);
      };
      await publish('With 3DS', threeDsGraph(account.body.id));
      const { id } = await createCheckout(debit, other);
      // The merchant replaces the active flow with one that charges without authenticating.
      await publish('Direct', {
        nodes: [node('trigger', 'trigger'), node('charge', 'acquirer', { connectorAccountId: account.body.id }), node('approve', 'approve'), node('decline', 'decline')],
        edges: [edge('trigger', 'charge'), edge('charge', 'approve', 'approved'), edge('charge', 'decline', 'declined')],
      });
      const refused = await other.sandbox.post(`/v1/payments/${id}/confirm`, { card: { token: 'tok_sandbox_approved' } }, { 'Idempotency-Key': key() });
      expect(refused.status).to.equal(422);
      expect(refused.body.error.code).to.equal('checkout_not_configured');
      expect(refused.body.error.message).to.match(/three_ds node/);
      const view = (await other.sandbox.get(`/v1/payments/${id}`)).body;
      expect(view).to.deep.include({ status: 'requires_payment_method', attempts: [] });
      expect(view.checkout.attemptsUsed).to.equal(0);
    });
  });
});
