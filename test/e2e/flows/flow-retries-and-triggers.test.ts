import { expect } from 'chai';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { SqlCardRetryCounts } from '../../../infrastructure/persistence/card-retry-count.repository';
import type { ProductServices } from '../../../infrastructure/main/modules';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import { recipientInput } from '../../support/builders/recipient.builder';
import { node, edge } from '../../support/builders/flow-graph.builder';

const MINUTE = 60_000;
const visa = (token: string, last4: string) => ({ token, brand: 'visa', bin: '411111', last4, expMonth: 12, expYear: 2030 });
const mastercard = (token: string, last4: string) => ({ token, brand: 'mastercard', bin: '555555', last4, expMonth: 12, expYear: 2030 });

/** trigger -> acquirer -> approve; declined -> retry (maxAttempts, 30 min) -> acquirer / decline. */
const retryGraph = (accountId: string, maxAttempts: number) => ({
  nodes: [node('trigger', 'trigger'), node('charge', 'acquirer', { connectorAccountId: accountId }), node('retry', 'retry', { maxAttempts, intervalMinutes: 30 }), node('approve', 'approve'), node('decline', 'decline')],
  edges: [edge('trigger', 'charge'), edge('charge', 'approve', 'approved'), edge('charge', 'retry', 'declined'), edge('retry', 'charge', 'retry'), edge('retry', 'decline', 'exhausted')],
});

/**
 * Retry nodes, brand retry budgets and every trigger, through the REST edge on PostgreSQL with the sandbox acquirer
 * over gRPC; the test plays the waits worker on a manual clock.
 */
describe('flow retries, brand budgets, triggers and templates (PostgreSQL, sandbox over gRPC)', function () {
  this.timeout(120_000);
  const clock = new ManualClock(new Date('2026-11-30T12:00:00.000Z'));
  let service: TestService<ProductServices>;
  let counts: SqlCardRetryCounts;

  const view = async (merchant: Merchant, id: string) => (await merchant.sandbox.get(`/v1/payments/${id}`)).body;
  const steps = (v: any) => v.flowExecution.steps.map((s: any) => [s.nodeId, s.port]);
  async function account(merchant: Merchant, name: string): Promise<string> {
    const created = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name, credentials: { merchantId: name, apiKey: 'k1' } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id;
  }
  async function publish(merchant: Merchant, body: Record<string, unknown>): Promise<string> {
    const flow = await merchant.sandbox.post('/v1/flows', body);
    expect(flow.status, JSON.stringify(flow.body)).to.equal(201);
    const published = await merchant.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {});
    expect(published.status, JSON.stringify(published.body)).to.equal(200);
    return flow.body.id;
  }
  /** Plays the waits worker: claims what is due and resumes it. */
  async function fireDue(): Promise<number> {
    const due = await service.services.flowRunWaits.claim(10);
    for (const wait of due) await service.services.flowRunWaits.fire(wait);
    return due.length;
  }

  before(async () => {
    service = await startTestService({ transport: 'in-process', clock, workers: false });
    counts = new SqlCardRetryCounts(service.core.transactor);
  });
  after(async () => {
    await service?.stop();
  });

  describe('retry node', () => {
    let merchant: Merchant;
    let accountId: string;
    before(async () => {
      merchant = await service.merchant('Retries');
      accountId = await account(merchant, 'main');
      await publish(merchant, { name: 'Retry twice', graph: retryGraph(accountId, 2) });
    });

    it('retries a reversible decline after its interval on the durable timer, then exhausts its attempts', async () => {
      const created = await merchant.sandbox.post('/v1/payments', { amount: 3_100, card: visa('tok_sandbox_insufficient_funds', '0001') });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body.status).to.equal('processing');
      let v = await view(merchant, created.body.id);
      expect(v.flowExecution.waitingFor).to.include({ kind: 'timer', nodeId: 'retry', dueAt: new Date(clock.now().getTime() + 30 * MINUTE).toISOString() });
      expect(await fireDue(), 'nothing is due before the interval').to.equal(0);
      for (let i = 0; i < 2; i++) {
        clock.advance(30 * MINUTE + 1_000);
        expect(await fireDue()).to.equal(1);
      }
      v = await view(merchant, created.body.id);
      expect(v.status).to.equal('failed');
      expect(v.attempts).to.have.length(3);
      expect(v.routing.stopReason).to.equal('retries_exhausted');
      expect(steps(v)).to.deep.equal([
        ['trigger', 'next'], ['charge', 'declined'], ['retry', 'retry'], ['charge', 'declined'], ['retry', 'retry'], ['charge', 'declined'], ['retry', 'exhausted'], ['decline', null],
      ]);
    });

    it('never retries an irreversible (ABECS) decline', async () => {
      const created = await merchant.sandbox.post('/v1/payments', { amount: 3_200, card: visa('tok_sandbox_stolen_card', '0002') });
      const v = await view(merchant, created.body.id);
      expect(v.status).to.equal('failed');
      expect(v.attempts).to.have.length(1);
      expect(v.routing.stopReason).to.equal('irreversible_decline');
      expect(v.flowExecution.steps.find((s: any) => s.nodeId === 'retry')).to.include({ port: 'exhausted' });
    });

    it('stops at the Visa budget: after 15 retries of the card at the merchant in 30 days, the retry node exhausts', async () => {
      const card = visa('tok_sandbox_insufficient_funds', '0003');
      // Fourteen reversible declines of this card earlier this month (another process counted them) ...
      const counted = { scope: { organizationId: merchant.organizationId, environment: 'sandbox' as const }, network: 'visa' as const, fingerprint: '411111:0003:12/2030' };
      for (let i = 0; i < 14; i++) await counts.count(counted, { kind: 'reversible_decline', amount: 999, at: new Date(clock.now().getTime() - 20 * 24 * 60 * MINUTE) });
      // ... so this payment's first decline is the 15th: one retry (the 15th) is allowed, the 16th is not.
      const created = await merchant.sandbox.post('/v1/payments', { amount: 3_300, card });
      expect(created.body.status).to.equal('processing');
      clock.advance(30 * MINUTE + 1_000);
      expect(await fireDue()).to.equal(1);
      const v = await view(merchant, created.body.id);
      expect(v.status).to.equal('failed');
      expect(v.attempts).to.have.length(2);
      expect(v.routing.stopReason).to.equal('brand_retry_limit');
      const exhausted = v.flowExecution.steps.filter((s: any) => s.nodeId === 'retry').at(-1);
      expect(exhausted).to.include({ port: 'exhausted' });
      expect(exhausted.note).to.match(/Visa allows at most 15 retries/);
      // The count survives in the shared table: a new payment with the card is not even sent.
      const again = await merchant.sandbox.post('/v1/payments', { amount: 100, card });
      const refused = await view(merchant, again.body.id);
      expect(refused.status).to.equal('failed');
      expect(refused.attempts).to.have.length(0);
      expect(refused.routing.stopReason).to.equal('brand_retry_limit');
    });
  });

  it('a fallback stops before the Mastercard budget (the 8th attempt of a transaction in 24 hours)', async () => {
    const merchant = await service.merchant('Fallback budget');
    const first = await account(merchant, 'first');
    const second = await account(merchant, 'second');
    await publish(merchant, {
      name: 'Route with fallback',
      graph: {
        nodes: [node('trigger', 'trigger'), node('route', 'route', { strategy: 'priority', connectorAccountIds: [first, second] }), node('approve', 'approve'), node('decline', 'decline')],
        edges: [edge('trigger', 'route'), edge('route', 'approve', 'approved'), edge('route', 'decline', 'declined')],
      },
    });
    const counted = { scope: { organizationId: merchant.organizationId, environment: 'sandbox' as const }, network: 'mastercard' as const, fingerprint: '555555:4444:12/2030' };
    for (let i = 0; i < 6; i++) await counts.count(counted, { kind: 'reversible_decline', amount: 5_000, at: new Date(clock.now().getTime() - 60 * MINUTE) });
    // The 7th attempt goes to the first account and fails after sending; the fallback would be the 8th.
    const created = await merchant.sandbox.post('/v1/payments', { amount: 5_000, card: mastercard('tok_sandbox_processing_error', '4444') });
    const v = await view(merchant, created.body.id);
    expect(v.status).to.equal('failed');
    expect(v.attempts.map((a: any) => a.connectorAccountId)).to.deep.equal([first]);
    expect(v.routing.stopReason).to.equal('brand_retry_limit');
    const route = v.flowExecution.steps.find((s: any) => s.nodeId === 'route');
    expect(route).to.include({ port: 'error' });
    expect(route.note).to.match(/Mastercard charges from the 8th attempt/);
  });

  it('every trigger publishes, and a payment started under it runs its flow', async () => {
    const merchant = await service.merchant('Triggers');
    const accountId = await account(merchant, 'main');
    const tagged = (trigger: string) => ({
      name: `On ${trigger}`,
      triggerEvent: trigger,
      graph: {
        nodes: [node('trigger', 'trigger'), node('tag', 'set_variable', { name: 'trigger', value: trigger }), node('charge', 'acquirer', { connectorAccountId: accountId }), node('approve', 'approve'), node('decline', 'decline')],
        edges: [edge('trigger', 'tag'), edge('tag', 'charge'), edge('charge', 'approve', 'approved'), edge('charge', 'decline', 'declined')],
      },
    });
    const flows: Record<string, string> = {};
    for (const trigger of ['payment.authorization_requested', 'invoice.payment_due', 'subscription.renewal', 'payment.retry_requested'] as const) {
      flows[trigger] = await publish(merchant, tagged(trigger));
    }
    await publish(merchant, { ...tagged('manual'), name: 'Manual' });
    const scope = { organizationId: merchant.organizationId, environment: 'sandbox' as const };
    for (const trigger of ['invoice.payment_due', 'subscription.renewal', 'payment.retry_requested'] as const) {
      const payment = await service.services.triggeredPayments.execute({ scope, amount: 1_000, card: visa('tok_sandbox_approved', '0100'), initiator: 'merchant', mitType: 'recurring', triggerEvent: trigger });
      const v = await view(merchant, payment.id as string);
      expect(v.status, trigger).to.equal('captured');
      expect(v.flowExecution.flowId, trigger).to.equal(flows[trigger]);
    }
    const rest = await merchant.sandbox.post('/v1/payments', { amount: 1_000, card: visa('tok_sandbox_approved', '0101') });
    expect((await view(merchant, rest.body.id)).flowExecution.flowId).to.equal(flows['payment.authorization_requested']);
  });

  it('the three templates publish once their accounts are filled, and run', async () => {
    const merchant = await service.merchant('Templates');
    const a = await account(merchant, 'a');
    const b = await account(merchant, 'b');
    const fill = async (template: string, accounts: Record<string, string | string[]>, edit: (graph: any) => void = () => {}) => {
      const flow = await merchant.sandbox.post('/v1/flows', { name: template, template });
      expect(flow.status, JSON.stringify(flow.body)).to.equal(201);
      const refused = await merchant.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {});
      expect(refused.status, 'blank accounts are named').to.equal(422);
      const graph = flow.body.graph;
      for (const n of graph.nodes) {
        const value = accounts[n.id];
        if (value === undefined) continue;
        if (Array.isArray(value)) n.data.connectorAccountIds = value;
        else n.data.connectorAccountId = value;
      }
      edit(graph);
      const patched = await merchant.sandbox.patch(`/v1/flows/${flow.body.id}`, { graph });
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
      const published = await merchant.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {});
      expect(published.status, JSON.stringify(published.body)).to.equal(200);
      return flow.body.id as string;
    };
    const ticket = await fill('roteamento-por-ticket', { 'route-high': [a, b], 'acquirer-low': a, 'acquirer-fallback': b });
    const high = await merchant.sandbox.post('/v1/payments', { amount: 150_000, card: visa('tok_sandbox_approved', '0200'), flowId: ticket });
    expect(steps(await view(merchant, high.body.id)).map((s: string[]) => s[0])).to.deep.equal(['trigger', 'high-ticket', 'route-high', 'approve']);
    const low = await merchant.sandbox.post('/v1/payments', { amount: 5_000, card: visa('tok_sandbox_processing_error', '0201'), flowId: ticket });
    const lowView = await view(merchant, low.body.id);
    expect(steps(lowView)).to.deep.equal([['trigger', 'next'], ['high-ticket', 'false'], ['acquirer-low', 'error'], ['acquirer-fallback', 'error']]);
    expect(lowView.routing.stopReason, 'both acquirers failed: the fallback ran').to.equal('all_accounts_failed');

    const seller = (await merchant.sandbox.post('/v1/recipients', recipientInput({ name: 'Seller' }))).body.id as string;
    const split = await fill('marketplace-split', { 'route-split': [a, b] }, (graph) => {
      graph.nodes.find((n: any) => n.id === 'split').data.splits[0].recipientId = seller;
    });
    const plain = await merchant.sandbox.post('/v1/payments', { amount: 2_000, card: visa('tok_sandbox_approved', '0202'), flowId: split });
    const divided = await view(merchant, plain.body.id);
    expect(steps(divided)).to.deep.equal([['trigger', 'next'], ['split', 'next'], ['route-split', 'approved'], ['approve', null]]);
    expect(divided.splits.map((s: any) => [s.recipientId, s.amount])).to.deep.equal([[seller, 1_800]], 'the seller takes 90 %');

    await fill('recorrencia-com-retentativa', { acquirer: a });
    const scope = { organizationId: merchant.organizationId, environment: 'sandbox' as const };
    const renewal = await service.services.triggeredPayments.execute({ scope, amount: 4_000, card: visa('tok_sandbox_insufficient_funds', '0203'), initiator: 'merchant', mitType: 'recurring', triggerEvent: 'subscription.renewal' });
    expect(renewal.status).to.equal('processing');
    const waiting = await view(merchant, renewal.id as string);
    expect(waiting.flowExecution.waitingFor).to.include({ kind: 'timer', nodeId: 'retry', dueAt: new Date(clock.now().getTime() + 1_440 * MINUTE).toISOString() });
    clock.advance(1_440 * MINUTE + 1_000);
    expect(await fireDue()).to.equal(1);
    const retried = await view(merchant, renewal.id as string);
    expect(steps(retried).slice(0, 4)).to.deep.equal([['trigger', 'next'], ['acquirer', 'declined'], ['retry', 'retry'], ['acquirer', 'declined']]);
  });
});
