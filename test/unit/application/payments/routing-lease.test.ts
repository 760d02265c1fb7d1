import { expect } from 'chai';
import { RoutingLease } from '../../../../application/payments/routing-lease';
import type { PaymentAttempt } from '../../../../domain/payment/payment';
import type { AuthorizeRequest } from '../../../../domain/ports/payment-recovery';
import { account, paymentDeps, SteppingClock } from '../../../support/payment-fakes';
import { GRACE_MS, recoveryDeps } from '../../../support/payment-recovery-fakes';

const sandbox = { organizationId: 'org_1', environment: 'sandbox' as const };
const NOW = new Date('2026-03-01T12:00:00.000Z');
const request = { amount: 10_000, source: { type: 'card', token: 'tok_sandbox_any' } } as unknown as AuthorizeRequest;
const saved = (attemptId: string, connectorAccountId: string) => ({ attemptId, connectorAccountId, startedAt: '2026-03-01T11:59:00.000Z' });

/** A routing opened by a creating request with its first intent (att_first on ca_a). */
async function openedLease() {
  const setup = paymentDeps([account('ca_a', 100), account('ca_b', 200)], new SteppingClock(new Date(NOW)));
  const recovery = recoveryDeps(setup.payments);
  const lease = RoutingLease.forCreate(setup.deps, recovery, 'pay_1', { attemptId: 'att_first', connectorAccountId: 'ca_a' });
  await lease.open({} as never, sandbox, request, ['ca_a', 'ca_b']);
  return { ...setup, store: recovery.store, lease, routing: () => recovery.store.routings.get('pay_1') };
}

function attempt(id: string, outcome: PaymentAttempt['outcome'], extra: Partial<PaymentAttempt> = {}): PaymentAttempt {
  return { id, connectorAccountId: 'ca_a', connectorSlug: 'sandbox', rawCode: null, classification: null, latencyMs: 5, outcome, message: null, startedAt: NOW.toISOString(), ...extra };
}

describe('RoutingLease (attempt ids saved before each call, outcome recorded only while the lease is held)', () => {
  it('open saves the first intent with the request, leased to the creating request for the grace period', async () => {
    const { routing } = await openedLease();
    expect(routing()).to.deep.include({ leaseOwner: 'create:pay_1', leaseUntil: NOW.getTime() + GRACE_MS, accountIds: ['ca_a', 'ca_b'], request });
    expect(routing()!.intents).to.deep.equal([{ attemptId: 'att_first', connectorAccountId: 'ca_a', startedAt: NOW.toISOString() }]);
  });

  describe('intents()', () => {
    it('reuses a saved attempt id for its account, in the order saved, and makes new ids for other calls', async () => {
      const { lease } = await openedLease();
      const intents = lease.intents([saved('att_a1', 'ca_a'), saved('att_b1', 'ca_b'), saved('att_a2', 'ca_a')], { extendForSaved: false });
      expect(intents.idFor('ca_a')).to.equal('att_a1');
      expect(intents.idFor('ca_a')).to.equal('att_a2');
      expect(intents.idFor('ca_b')).to.equal('att_b1');
      // every saved id of ca_a was used: the next call to it is a new attempt
      expect(intents.idFor('ca_a')).to.match(/^att_\d{4}$/);
    });

    it('a new attempt id is saved (with its account and time) and the lease extended BEFORE its call', async () => {
      const { lease, store, routing, deps } = await openedLease();
      const intents = lease.intents([saved('att_first', 'ca_a')], { extendForSaved: false });
      (deps.clock as SteppingClock).current = new Date(NOW.getTime() + 5_000);
      const id = intents.idFor('ca_b');
      expect(await intents.beforeCall('ca_b', id)).to.equal(true);
      expect(routing()!.intents.map((i) => [i.attemptId, i.connectorAccountId])).to.deep.equal([['att_first', 'ca_a'], [id, 'ca_b']]);
      expect(routing()!.intents[1]!.startedAt).to.equal('2026-03-01T12:00:05.000Z');
      expect(routing()!.leaseUntil).to.equal(NOW.getTime() + 5_000 + GRACE_MS);
      expect(store.renewals).to.have.length(1);
    });

    it('a saved attempt id is sent again without saving it twice; the creating request does not even renew', async () => {
      const { lease, store, routing } = await openedLease();
      const intents = lease.intents([saved('att_first', 'ca_a')], { extendForSaved: false });
      expect(await intents.beforeCall('ca_a', intents.idFor('ca_a'))).to.equal(true);
      expect(store.renewals).to.have.length(0);
      expect(routing()!.intents).to.have.length(1);
    });

    it('a holder resuming another run extends the lease before re-sending a saved attempt, saving no new intent', async () => {
      const { lease, store, routing } = await openedLease();
      const intents = lease.intents([saved('att_first', 'ca_a')], { extendForSaved: true });
      expect(await intents.beforeCall('ca_a', intents.idFor('ca_a'))).to.equal(true);
      expect(store.renewals).to.deep.equal([{ leaseOwner: 'create:pay_1', intent: null, held: true }]);
      expect(routing()!.intents).to.have.length(1);
    });

    it('once the lease is lost, beforeCall says stop, for a new attempt and for a saved one re-sent by a resuming holder', async () => {
      const { lease, store, routing } = await openedLease();
      store.takeOver('pay_1');
      const intents = lease.intents([saved('att_first', 'ca_a')], { extendForSaved: true });
      expect(await intents.beforeCall('ca_b', 'att_new')).to.equal(false);
      expect(await intents.beforeCall('ca_a', 'att_first')).to.equal(false);
      expect(routing()!.intents.map((i) => i.attemptId)).to.deep.equal(['att_first']);
    });

    it('notReused() names the saved attempts that were never sent again', async () => {
      const { lease } = await openedLease();
      const intents = lease.intents([saved('att_a1', 'ca_a'), saved('att_b1', 'ca_b')], { extendForSaved: true });
      await intents.beforeCall('ca_a', intents.idFor('ca_a'));
      expect(intents.notReused()).to.deep.equal([saved('att_b1', 'ca_b')]);
    });
  });

  describe('settle (tx2)', () => {
    it('ends the routing and queues for reconciliation exactly the attempts whose outcome is unknown', async () => {
      const { lease, store, routing } = await openedLease();
      const attempts = [attempt('att_t', 'timeout'), attempt('att_dropped', 'technical_failure', { outcomeUnknown: true }), attempt('att_refused', 'technical_failure'), attempt('att_ok', 'approved')];
      expect(await lease.settle({} as never, attempts)).to.equal(true);
      expect(routing()).to.equal(undefined);
      expect([...store.reconciliations.keys()]).to.deep.equal(['att_t', 'att_dropped']);
      expect(new Set([...store.reconciliations.values()].map((c) => c.reversalKey)).size).to.equal(2);
    });

    it('after a takeover, settle is false and settleQueued fails as lease lost, queueing nothing', async () => {
      const { lease, store } = await openedLease();
      store.takeOver('pay_1');
      expect(await lease.settle({} as never, [attempt('att_t', 'timeout')])).to.equal(false);
      const error = await lease.settleQueued({} as never, [attempt('att_t', 'timeout')]).catch((e: unknown) => e);
      expect(lease.isLeaseLost(error)).to.equal(true);
      expect(store.reconciliations.size).to.equal(0);
      expect(store.routings.has('pay_1')).to.equal(true);
    });
  });
});
