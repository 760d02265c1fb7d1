import { expect } from 'chai';
import type { PaymentConnectors } from '../../../domain/ports/payment-connectors';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { moduleList } from '../../../infrastructure/main/module';
import { IDENTITY_MODULE } from '../../../infrastructure/main/identity.module';
import { FLOWS_MODULE } from '../../../infrastructure/main/flows.module';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { paymentsModule } from '../../../infrastructure/main/payments.module';
import { SUBSCRIPTIONS_MODULE } from '../../../infrastructure/main/subscriptions.module';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';

const DAY = 86_400_000;

/**
 * Answers every card authorization as the sandbox scenario `answer.scenario` (null: the card's own token decides), so
 * one saved card can be declined, then approved.
 */
const answer: { scenario: string | null } = { scenario: null };
function decorate(connectors: PaymentConnectors): PaymentConnectors {
  return {
    accounts: (scope) => connectors.accounts(scope),
    async open(scope, accountId) {
      const opened = await connectors.open(scope, accountId);
      if (!opened) return opened;
      const gateway = opened.gateway;
      const authorize: typeof gateway.authorize = (input) =>
        gateway.authorize(answer.scenario && input.source.type === 'card' ? { ...input, source: { ...input.source, token: `tok_sandbox_${answer.scenario}` } } : input);
      return { ...opened, gateway: Object.assign(Object.create(gateway), { authorize }) };
    },
  };
}

/**
 * Subscriptions through the REST edge on PostgreSQL with the sandbox acquirer over gRPC; the test plays the renewal
 * worker (claim, renew) on a manual clock.
 */
describe('subscriptions (PostgreSQL, sandbox over gRPC, manual clock)', function () {
  this.timeout(120_000);
  const clock = new ManualClock(new Date('2026-01-31T12:00:00.000Z'));
  let service: TestService<{ subscriptionRenewals: import('../../../application/subscriptions/renew-subscriptions').RenewSubscriptions }>;
  let merchant: Merchant;

  before(async () => {
    service = await startTestServiceWith(
      moduleList().with(IDENTITY_MODULE).with(FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule({ decorateConnectors: decorate })).with(SUBSCRIPTIONS_MODULE),
      { transport: 'in-process', clock, workers: false },
    );
    merchant = await service.merchant('Subscriptions');
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm1', apiKey: 'k1' } });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
  });
  after(async () => {
    await service?.stop();
  });
  afterEach(() => {
    answer.scenario = null;
  });

  /** Plays one renewal worker: claims what is due and renews it. */
  async function renewDue(): Promise<number> {
    const claimed = await service.services.subscriptionRenewals.claim(10);
    for (const c of claimed) await service.services.subscriptionRenewals.renew(c);
    return claimed.length;
  }
  async function savedCard(last4: string): Promise<{ customerId: string; paymentMethodId: string }> {
    const customer = await merchant.sandbox.post('/v1/customers', { name: 'Ana Silva', document: '52998224725' });
    const method = await merchant.sandbox.post(`/v1/customers/${customer.body.id}/payment-methods`, {
      card: { token: 'tok_sandbox_approved', brand: 'visa', bin: '411111', last4, expMonth: 12, expYear: 2030, holderName: 'ANA SILVA' },
      verify: false,
    });
    expect(method.status, JSON.stringify(method.body)).to.equal(201);
    return { customerId: customer.body.id, paymentMethodId: method.body.id };
  }
  async function subscribe(body: Record<string, unknown>) {
    const created = await merchant.sandbox.post('/v1/subscriptions', { amount: 4_990, interval: 'month', ...body });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body;
  }
  const read = async (id: string) => (await merchant.sandbox.get(`/v1/subscriptions/${id}`)).body;
  const paymentsOf = async (subscriptionId: string) => {
    const rows = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ doc: any }>>(
      `select doc from payments where doc->'metadata'->>'subscriptionId' = ? order by created_at, id`,
      [subscriptionId],
    );
    return rows.map((r) => (typeof r.doc === 'string' ? JSON.parse(r.doc) : r.doc));
  };
  const eventsOf = async (subscriptionId: string) => {
    const rows = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ type: string; data: any }>>(
      `select type, data from events where object_id = ? or object_id like ? order by created_at, id`,
      [subscriptionId, `${subscriptionId}.%`],
    );
    return rows.map((r) => ({ type: r.type, data: typeof r.data === 'string' ? JSON.parse(r.data) : r.data }));
  };

  it('refuses bad input with the contract\'s error and keeps nothing', async () => {
    const card = await savedCard('0100');
    const other = await savedCard('0101');
    const foreign = await merchant.sandbox.post('/v1/subscriptions', { ...card, paymentMethodId: other.paymentMethodId, amount: 100, interval: 'month' });
    expect(foreign.status).to.equal(422);
    expect(foreign.body.error).to.include({ code: 'validation_failed', param: 'body.paymentMethodId' });
    const badInterval = await merchant.sandbox.post('/v1/subscriptions', { ...card, amount: 100, interval: 'fortnight' });
    expect(badInterval.status).to.equal(422);
    expect(badInterval.body.error.param).to.equal('body.interval');
    const missing = await merchant.sandbox.post('/v1/subscriptions', { ...card, customerId: 'cus_nope', amount: 100, interval: 'month' });
    expect(missing.body.error).to.include({ code: 'resource_missing', param: 'body.customerId' });
    const list = await merchant.sandbox.get(`/v1/subscriptions?customerId=${card.customerId}`);
    expect(list.body.data).to.deep.equal([]);
    expect((await merchant.sandbox.get('/v1/subscriptions/sub_unknown')).status).to.equal(404);
  });

  it('charges at once, then renews on the calendar (Jan 31 -> Feb 28 -> Mar 31) as merchant-initiated recurring payments', async () => {
    const card = await savedCard('0001');
    const sub = await subscribe({ ...card, metadata: { plan: 'gold' } });
    expect(sub).to.include({ status: 'active', currentPeriod: 0, nextChargeAt: clock.now().toISOString() });
    expect(sub.id).to.match(/^sub_/);
    expect(await renewDue()).to.be.greaterThanOrEqual(1);
    let v = await read(sub.id);
    expect(v).to.include({ status: 'active', currentPeriod: 1, nextChargeAt: '2026-02-28T12:00:00.000Z' });
    const [first] = await paymentsOf(sub.id);
    expect(first).to.include({ status: 'captured', initiator: 'merchant', mitType: 'recurring', customerId: card.customerId, paymentMethodId: card.paymentMethodId, amount: 4_990 });
    expect(v.latestPaymentId).to.equal(first.id);
    expect(await renewDue(), 'nothing due before Feb 28').to.equal(0);
    clock.set(new Date('2026-02-28T12:00:00.000Z'));
    await renewDue();
    v = await read(sub.id);
    expect(v).to.include({ status: 'active', currentPeriod: 2, nextChargeAt: '2026-03-31T12:00:00.000Z' });
    expect(await paymentsOf(sub.id)).to.have.length(2);
  });

  it('starts at a future startDate', async () => {
    const card = await savedCard('0002');
    const startDate = new Date(clock.now().getTime() + 3 * DAY).toISOString();
    const sub = await subscribe({ ...card, interval: 'week', intervalCount: 2, startDate });
    expect(sub.nextChargeAt).to.equal(startDate);
    await renewDue();
    expect(await paymentsOf(sub.id)).to.have.length(0);
    clock.advance(3 * DAY);
    await renewDue();
    expect((await read(sub.id)).nextChargeAt).to.equal(new Date(Date.parse(startDate) + 14 * DAY).toISOString());
  });

  it('two workers racing for one renewal: one claims it, one payment', async () => {
    const card = await savedCard('0003');
    const sub = await subscribe(card);
    const [a, b] = await Promise.all([service.services.subscriptionRenewals.claim(50), service.services.subscriptionRenewals.claim(50)]);
    const mine = [...a, ...b].filter((c) => c.subscriptionId === sub.id);
    expect(mine, 'claimed by exactly one worker').to.have.length(1);
    await Promise.all([...a, ...b].map((c) => service.services.subscriptionRenewals.renew(c)));
    expect(await paymentsOf(sub.id)).to.have.length(1);
  });

  it('a worker that dies after charging: the next one gets that payment back, never a second charge', async () => {
    const card = await savedCard('0004');
    const sub = await subscribe(card);
    const [first] = (await service.services.subscriptionRenewals.claim(50)).filter((c) => c.subscriptionId === sub.id);
    // The first worker charges, then dies before recording: its charge is made, the subscription unchanged.
    const subscriptionView = await read(sub.id);
    await (service.services.subscriptionRenewals as any).deps.charges.charge({
      scope: first!.scope, idempotencyKey: `subscription:${sub.id}:period:0:try:0`, triggerEvent: 'subscription.renewal',
      amount: subscriptionView.amount, currency: 'BRL', customerId: card.customerId, paymentMethodId: card.paymentMethodId, description: null, metadata: { subscriptionId: sub.id, subscriptionPeriod: 0 },
    });
    expect(await renewDue(), 'its lease holds').to.equal(0);
    clock.advance(5 * 60_000 + 1_000);
    await renewDue();
    expect(await paymentsOf(sub.id)).to.have.length(1);
    expect(await read(sub.id)).to.include({ currentPeriod: 1, status: 'active' });
    // The dead worker wakes up: its lease is gone, it records nothing.
    expect(await service.services.subscriptionRenewals.renew(first!)).to.equal(false);
    expect(await paymentsOf(sub.id)).to.have.length(1);
  });

  it('a failed renewal: invoice.payment_failed with the retry decision, retries under payment.retry_requested, then success', async () => {
    const card = await savedCard('0005');
    answer.scenario = 'insufficient_funds';
    const sub = await subscribe(card);
    // Which trigger each charge runs under (the flows of subscription.renewal, then of payment.retry_requested).
    const charges = (service.services.subscriptionRenewals as any).deps.charges;
    const triggers: string[] = [];
    const charge = charges.charge.bind(charges);
    charges.charge = (input: { triggerEvent: string }) => (triggers.push(input.triggerEvent), charge(input));
    await renewDue();
    let v = await read(sub.id);
    expect(v).to.include({ status: 'past_due', currentPeriod: 0, retriesDone: 1, nextChargeAt: new Date(clock.now().getTime() + DAY).toISOString() });
    let events = await eventsOf(sub.id);
    expect(events.map((e) => e.type)).to.deep.equal(['invoice.payment_failed']);
    expect(events[0]!.data.object).to.deep.include({ object: 'invoice', id: `${sub.id}.0`, subscriptionId: sub.id, period: 0, attempt: 1 });
    expect(events[0]!.data.object.retryDecision).to.deep.equal({ willRetry: true, nextRetryAt: v.nextChargeAt, reason: null });
    clock.advance(DAY);
    answer.scenario = null;
    await renewDue();
    v = await read(sub.id);
    expect(v).to.include({ status: 'active', currentPeriod: 1, retriesDone: 0 });
    const payments = await paymentsOf(sub.id);
    expect(payments.map((p) => p.status)).to.deep.equal(['failed', 'captured']);
    expect(triggers).to.deep.equal(['subscription.renewal', 'payment.retry_requested']);
    charges.charge = charge;
    events = await eventsOf(sub.id);
    expect(events.map((e) => e.type)).to.deep.equal(['invoice.payment_failed']);
  });

  it('exhausted retries emit retry.exhausted; the period stays unpaid and the next one is scheduled', async () => {
    const card = await savedCard('0006');
    answer.scenario = 'insufficient_funds';
    const sub = await subscribe({ ...card, interval: 'year' });
    const start = new Date(sub.startDate);
    await renewDue();
    for (const days of [1, 3, 5]) {
      clock.advance(days * DAY);
      expect(await renewDue()).to.be.greaterThanOrEqual(1);
    }
    const v = await read(sub.id);
    expect(v).to.include({ status: 'past_due', currentPeriod: 1, retriesDone: 0 });
    const nextYear = new Date(start);
    nextYear.setUTCFullYear(start.getUTCFullYear() + 1);
    expect(v.nextChargeAt).to.equal(nextYear.toISOString());
    expect(await paymentsOf(sub.id)).to.have.length(4);
    const events = await eventsOf(sub.id);
    expect(events.map((e) => e.type)).to.deep.equal(['invoice.payment_failed', 'invoice.payment_failed', 'invoice.payment_failed', 'invoice.payment_failed', 'retry.exhausted']);
    expect(events[3]!.data.object.retryDecision).to.deep.equal({ willRetry: false, nextRetryAt: null, reason: 'retries_exhausted' });
    expect(events[4]!.data.object).to.deep.include({ object: 'retry', subscriptionId: sub.id, period: 0, attempts: 4, reason: 'retries_exhausted' });
  });

  it('an issuer\'s do-not-retry answer cancels it with subscription.canceled_by_issuer, and nothing is charged again', async () => {
    const card = await savedCard('0007');
    answer.scenario = 'stolen_card';
    const sub = await subscribe(card);
    await renewDue();
    const v = await read(sub.id);
    expect(v).to.include({ status: 'canceled', cancellationReason: 'issuer', nextChargeAt: null });
    const events = await eventsOf(sub.id);
    expect(events.map((e) => e.type)).to.deep.equal(['invoice.payment_failed', 'subscription.canceled_by_issuer']);
    expect(events[0]!.data.object.retryDecision).to.deep.equal({ willRetry: false, nextRetryAt: null, reason: 'irreversible_decline' });
    expect(events[1]!.data.object).to.include({ id: sub.id, status: 'canceled' });
    expect(events[1]!.data.previousAttributes).to.deep.equal({ status: 'active' });
    clock.advance(40 * DAY);
    await renewDue();
    expect(await paymentsOf(sub.id)).to.have.length(1);
  });

  it('canceled by the merchant: nothing is charged after it, a second cancel is 409', async () => {
    const card = await savedCard('0008');
    const sub = await subscribe({ ...card, startDate: new Date(clock.now().getTime() + DAY).toISOString() });
    const canceled = await merchant.sandbox.post(`/v1/subscriptions/${sub.id}/cancel`, {});
    expect(canceled.status, JSON.stringify(canceled.body)).to.equal(201);
    expect(canceled.body).to.include({ status: 'canceled', cancellationReason: 'merchant', nextChargeAt: null });
    const again = await merchant.sandbox.post(`/v1/subscriptions/${sub.id}/cancel`, {});
    expect(again.status).to.equal(409);
    expect(again.body.error.code).to.equal('invalid_state');
    clock.advance(2 * DAY);
    await renewDue();
    expect(await paymentsOf(sub.id)).to.have.length(0);
    const list = await merchant.sandbox.get(`/v1/subscriptions?status=canceled&customerId=${card.customerId}`);
    expect(list.body.data.map((s: any) => s.id)).to.deep.equal([sub.id]);
  });
});
