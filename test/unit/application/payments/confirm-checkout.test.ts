import { expect } from 'chai';
import { ConfirmCheckout } from '../../../../application/payments/confirm-checkout';
import { CreatePayment } from '../../../../application/payments/create-payment';
import { hourOf, type CardAttemptBucket, type CountedAttemptKind } from '../../../../domain/payment/retry/brand-retry-rules';
import type { CardRetryCounts, CountedCard } from '../../../../domain/ports/card-retry-counts';
import type { CheckoutSecrets } from '../../../../domain/ports/checkout-secrets';
import type { PaymentPrimitives } from '../../../../domain/payment/payment';
import { SteppingClock, account, approved, declined, paymentDeps } from '../../../support/payment-fakes';

const sandbox = { organizationId: 'org_1', environment: 'sandbox' as const };
const NOW = new Date('2026-03-01T12:00:00.000Z');
/** The hour the counted attempts fall in: the current one, well inside every window. */
const thisHour = hourOf(NOW);
/** A Mastercard card: its brand charges from the 8th attempt of a transaction (same amount) in 24 hours. */
const card = { token: 'tok_sandbox_any', brand: 'mastercard', bin: '555555', last4: '4444', expMonth: 12, expYear: 2030 };

/** The shared brand retry counts in memory: what was counted, and the history every process would read. */
class InMemoryRetryCounts implements CardRetryCounts {
  readonly counted: Array<{ fingerprint: string; kind: CountedAttemptKind; amount: number }> = [];
  constructor(private readonly buckets: CardAttemptBucket[] = []) {}
  async count(card: CountedCard, attempt: { kind: CountedAttemptKind; amount: number; at: Date }): Promise<void> {
    this.counted.push({ fingerprint: card.fingerprint, kind: attempt.kind, amount: attempt.amount });
    this.buckets.push({ kind: attempt.kind, amount: attempt.amount, hour: hourOf(attempt.at), count: 1 });
  }
  async history(): Promise<CardAttemptBucket[]> {
    return [...this.buckets];
  }
}

const secrets: CheckoutSecrets = {
  issue: (paymentId) => ({ secret: `${paymentId}_secret_x`, sealed: 'sealed', sha256: '0'.repeat(64) }),
  reveal: (paymentId) => `${paymentId}_secret_x`,
  matches: () => false,
};

/** A checkout payment of 5,000 at one browser-tokenizing account, with the card's counts as given. */
async function checkoutWith(counts: InMemoryRetryCounts) {
  const fakes = paymentDeps([account('ca_a', 100, { capabilities: ['card', 'browser_tokenization'] })], new SteppingClock(NOW));
  const deps = { ...fakes.deps, checkoutSecrets: secrets, retryCounts: counts };
  const created = await new CreatePayment(deps).execute({ scope: sandbox, amount: 5_000 });
  expect(created.status).to.equal('requires_payment_method');
  return { ...fakes, confirm: new ConfirmCheckout(deps), paymentId: created.id };
}

describe('ConfirmCheckout: the card brand retry budget', () => {
  it('counts a declined confirm in the shared counts, as a direct payment does', async () => {
    const counts = new InMemoryRetryCounts();
    const { connectors, confirm, paymentId } = await checkoutWith(counts);
    connectors.script('ca_a', declined('51'));
    const result = await confirm.execute({ scope: sandbox, paymentId, channel: 'server', card });
    expect(result.status).to.equal('requires_payment_method');
    expect(connectors.calls).to.have.length(1);
    expect(counts.counted).to.deep.equal([{ fingerprint: '555555:4444:12/2030', kind: 'reversible_decline', amount: 5_000 }]);
  });

  it('over the budget: nothing is sent or counted, the attempt is spent and the checkout fails with brand_retry_limit', async () => {
    const counts = new InMemoryRetryCounts([{ kind: 'reversible_decline', amount: 5_000, hour: thisHour, count: 7 }]);
    const { connectors, confirm, paymentId, outbox } = await checkoutWith(counts);
    const result = await confirm.execute({ scope: sandbox, paymentId, channel: 'browser', card });
    expect(connectors.calls, 'no acquirer call').to.deep.equal([]);
    expect(counts.counted, 'an attempt not sent is not counted').to.deep.equal([]);
    expect(result).to.deep.include({ status: 'failed', attempts: [], decline: null, routingStopReason: 'brand_retry_limit' });
    expect(result.error).to.include({ code: 'no_connector_available', stage: 'routing' });
    expect(result.checkout).to.include({ attemptsUsed: 1, endedBy: 'not_issuer_decline' });
    expect(outbox.types()).to.deep.equal(['payment.failed']);
  });

  it('the budget counts the transaction: the same card at another amount is still sent', async () => {
    const counts = new InMemoryRetryCounts([{ kind: 'reversible_decline', amount: 4_999, hour: thisHour, count: 7 }]);
    const { connectors, confirm, paymentId } = await checkoutWith(counts);
    connectors.script('ca_a', declined('51'));
    await confirm.execute({ scope: sandbox, paymentId, channel: 'server', card });
    expect(connectors.calls).to.have.length(1);
  });
});

describe('ConfirmCheckout: tx1 writes the payment only if it is still as read', () => {
  /** Before tx1's guarded write, another request changes the stored payment as `patch` says. */
  const changedMeanwhile = (payments: ReturnType<typeof paymentDeps>['payments'], paymentId: string, patch: (p: PaymentPrimitives) => PaymentPrimitives) => {
    payments.beforeGuardedUpdate = () => {
      payments.beforeGuardedUpdate = null;
      const k = `${sandbox.organizationId}/${sandbox.environment}/${paymentId}`;
      payments.rows.set(k, patch(payments.rows.get(k)!));
    };
  };
  const later = (p: PaymentPrimitives) => new Date(Date.parse(p.updatedAt) + 1).toISOString();

  it('another confirmation counted meanwhile: 409 invalid_state, no call, nothing of tx1 kept', async () => {
    const { connectors, confirm, paymentId, payments, outbox } = await checkoutWith(new InMemoryRetryCounts());
    changedMeanwhile(payments, paymentId, (p) => ({ ...p, status: 'processing', updatedAt: later(p), checkout: { ...p.checkout!, attemptsUsed: 1 }, description: 'the other confirm' }));
    const refused = await confirm.execute({ scope: sandbox, paymentId, channel: 'server', card }).then(() => null, (error: unknown) => error);
    expect(refused).to.include({ code: 'invalid_state' });
    expect(connectors.calls, 'no acquirer call').to.deep.equal([]);
    const stored = (await payments.find({} as never, sandbox, paymentId))!.view();
    expect(stored).to.deep.include({ status: 'processing', description: 'the other confirm' });
    expect(outbox.events).to.deep.equal([]);
  });

  it('the same attempt count but no longer awaiting a card (voided meanwhile): 409 invalid_state', async () => {
    const { connectors, confirm, paymentId, payments } = await checkoutWith(new InMemoryRetryCounts());
    changedMeanwhile(payments, paymentId, (p) => ({ ...p, status: 'canceled', updatedAt: later(p) }));
    const refused = await confirm.execute({ scope: sandbox, paymentId, channel: 'browser', card }).then(() => null, (error: unknown) => error);
    expect(refused).to.include({ code: 'invalid_state' });
    expect(connectors.calls).to.deep.equal([]);
  });

  it('expired meanwhile: 410 payment_expired', async () => {
    const { connectors, confirm, paymentId, payments } = await checkoutWith(new InMemoryRetryCounts());
    changedMeanwhile(payments, paymentId, (p) => ({ ...p, status: 'canceled', updatedAt: later(p), checkout: { ...p.checkout!, endedBy: 'expired' } }));
    const refused = await confirm.execute({ scope: sandbox, paymentId, channel: 'browser', card }).then(() => null, (error: unknown) => error);
    expect(refused).to.include({ code: 'payment_expired' });
    expect(connectors.calls).to.deep.equal([]);
  });

  it('a change meanwhile that leaves the checks holding is kept, and tx1 runs again on the payment as it is now', async () => {
    const { connectors, confirm, paymentId, payments } = await checkoutWith(new InMemoryRetryCounts());
    connectors.script('ca_a', approved());
    changedMeanwhile(payments, paymentId, (p) => ({ ...p, updatedAt: later(p), description: 'changed meanwhile' }));
    const result = await confirm.execute({ scope: sandbox, paymentId, channel: 'server', card });
    expect(result.status).to.equal('captured');
    expect(result.description).to.equal('changed meanwhile');
    expect(result.checkout).to.include({ attemptsUsed: 1 });
    expect(connectors.calls).to.have.length(1);
  });
});
