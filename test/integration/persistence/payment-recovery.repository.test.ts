import { expect } from 'chai';
import type { AuthorizeRequest } from '../../../domain/ports/payment-recovery';
import { entityManager, MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { SqlPaymentRecoveryRepository } from '../../../infrastructure/persistence/payment-recovery.repository';
import { SqlPaymentRepository } from '../../../infrastructure/persistence/payment.repository';
import { processingPayment } from '../../support/builders/payment.builder';
import { embeddedTestDatabase, postgresTestDatabase, useMigratedDatabase, type TestDatabase } from '../../support/test-databases';

const T0 = new Date('2026-08-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const scope = { organizationId: 'org_rec', environment: 'sandbox' as const };
const request: AuthorizeRequest = { paymentId: 'pay_x', source: { type: 'card', token: 'tok_sandbox_approved' }, amount: 100, currency: 'BRL', capture: true };

function suite(name: string, open: () => Promise<TestDatabase>) {
  describe(`payment recovery repository (${name})`, function () {
    this.timeout(60_000);
    const database = useMigratedDatabase(open);
    const repo = new SqlPaymentRecoveryRepository();

    const openRouting = (paymentId: string, leaseUntil: Date) =>
      database.transactor.run((tx) =>
        repo.open(tx, { scope, paymentId, request: { ...request, paymentId }, accountIds: ['ca_1', 'ca_2'], firstIntent: { attemptId: `att_${paymentId}_1`, connectorAccountId: 'ca_1', startedAt: T0.toISOString() }, leaseOwner: `create:${paymentId}`, leaseUntil, now: T0 }),
      );

    it('only the lease holder renews, adds intents and settles; expired leases are claimed once by concurrent workers', async () => {
      await openRouting('pay_a', at(5_000));
      await openRouting('pay_b', at(5_000));
      expect(await database.transactor.read((tx) => repo.renew(tx, { paymentId: 'pay_a', leaseOwner: 'intruder', leaseUntil: at(9_000), now: T0 }))).to.equal(false);
      expect(
        await database.transactor.read((tx) =>
          repo.renew(tx, { paymentId: 'pay_a', leaseOwner: 'create:pay_a', leaseUntil: at(6_000), intent: { attemptId: 'att_pay_a_2', connectorAccountId: 'ca_2', startedAt: T0.toISOString() }, now: T0 }),
        ),
      ).to.equal(true);

      expect(await database.transactor.run((tx) => repo.claimExpired(tx, { now: at(5_500), leaseOwner: 'w0', leaseUntil: at(99_000), limit: 10 }))).to.have.length(1); // pay_b only
      const claims = await Promise.all(
        ['w1', 'w2', 'w3'].map((w) => database.transactor.run((tx) => repo.claimExpired(tx, { now: at(7_000), leaseOwner: w, leaseUntil: at(20_000), limit: 10 }))),
      );
      const claimed = claims.flat();
      expect(claimed.map((c) => c.paymentId)).to.deep.equal(['pay_a']);
      expect(claimed[0]!.intents.map((i) => i.attemptId)).to.deep.equal(['att_pay_a_1', 'att_pay_a_2']);
      expect(claimed[0]!.accountIds).to.deep.equal(['ca_1', 'ca_2']);
      expect(claimed[0]!.request).to.deep.equal({ ...request, paymentId: 'pay_a' });
      expect(claimed[0]!.scope).to.deep.equal(scope);

      // The creating request lost its lease: it can neither add intents nor settle.
      expect(await database.transactor.read((tx) => repo.renew(tx, { paymentId: 'pay_a', leaseOwner: 'create:pay_a', leaseUntil: at(30_000), now: at(7_100) }))).to.equal(false);
      expect(await database.transactor.run((tx) => repo.settle(tx, { paymentId: 'pay_a', leaseOwner: 'create:pay_a', reconcile: [], now: at(7_100) }))).to.equal(false);

      const holder = claimed[0]!.leaseOwner;
      const reconcile = [{ attemptId: 'att_pay_a_1', connectorAccountId: 'ca_1', reversalKey: 'op_rev_1' }];
      expect(await database.transactor.run((tx) => repo.settle(tx, { paymentId: 'pay_a', leaseOwner: holder, reconcile, now: at(7_200) }))).to.equal(true);
      expect(await database.transactor.run((tx) => repo.settle(tx, { paymentId: 'pay_a', leaseOwner: holder, reconcile, now: at(7_300) }))).to.equal(false);
      expect(await database.transactor.run((tx) => repo.claimExpired(tx, { now: at(60_000), leaseOwner: 'w4', leaseUntil: at(70_000), limit: 10 })).then((r) => r.map((c) => c.paymentId))).to.deep.equal([]);
    });

    it('settleAndLock: one statement ends the routing, queues reconciliations and returns the locked payment', async () => {
      const payment = processingPayment({ id: 'pay_lock', organizationId: scope.organizationId, environment: scope.environment });
      await database.transactor.run(async (tx) => {
        await new SqlPaymentRepository().insert(tx, payment);
        await repo.open(tx, { scope, paymentId: 'pay_lock', request, accountIds: ['ca_1'], firstIntent: { attemptId: 'att_lock_1', connectorAccountId: 'ca_1', startedAt: T0.toISOString() }, leaseOwner: 'create:pay_lock', leaseUntil: at(5_000), now: T0 });
      });
      const reconcile = [{ attemptId: 'att_lock_1', connectorAccountId: 'ca_1', reversalKey: 'op_lock' }];
      const stranger = await database.transactor.run((tx) => repo.settleAndLock(tx, { scope, paymentId: 'pay_lock', leaseOwner: 'w_other', reconcile, now: T0 }));
      expect(stranger.held).to.equal(false);
      expect(stranger.payment?.id).to.equal('pay_lock');
      const owner = await database.transactor.run((tx) => repo.settleAndLock(tx, { scope, paymentId: 'pay_lock', leaseOwner: 'create:pay_lock', reconcile, now: T0 }));
      expect(owner.held).to.equal(true);
      expect(owner.payment?.status).to.equal('processing');
      const queued = await database.db.orm.em.fork().execute(`select status, reversal_key from payment_reconciliations where attempt_id = 'att_lock_1'`);
      expect(queued).to.deep.equal([{ status: 'pending', reversal_key: 'op_lock' }]);
      expect((await database.db.orm.em.fork().execute(`select count(*)::int as n from payment_routings where payment_id = 'pay_lock'`))[0].n).to.equal(0);
    });

    it('reconciliations: claimed once when due, retried at next_at, request blanked once final', async () => {
      const tasks = await Promise.all(['r1', 'r2'].map((w) => database.transactor.run((tx) => repo.claimReconciliations(tx, { now: at(7_200), leaseOwner: w, leaseUntil: at(30_000), limit: 10 }))));
      const task = tasks.flat().filter((t) => t.attemptId === 'att_pay_a_1');
      expect(tasks.flat()).to.have.length(2); // att_pay_a_1 and att_lock_1, each to one worker only
      expect(task[0]).to.deep.include({ attemptId: 'att_pay_a_1', paymentId: 'pay_a', connectorAccountId: 'ca_1', reversalKey: 'op_rev_1', tries: 0 });
      expect(task[0]!.request.source!.token).to.equal('tok_sandbox_approved');
      expect(await database.transactor.run((tx) => repo.finishReconciliation(tx, { attemptId: 'att_pay_a_1', leaseOwner: 'someone', status: 'voided', tries: 1, nextAt: at(8_000), detail: {}, now: at(7_500) }))).to.equal(false);
      expect(await database.transactor.run((tx) => repo.finishReconciliation(tx, { attemptId: 'att_pay_a_1', leaseOwner: task[0]!.leaseOwner, status: 'pending', tries: 1, nextAt: at(40_000), detail: {}, now: at(7_500) }))).to.equal(true);
      expect(await database.transactor.run((tx) => repo.claimReconciliations(tx, { now: at(29_000), leaseOwner: 'r3', leaseUntil: at(99_000), limit: 10 }))).to.deep.equal([]);
      const again = await database.transactor.run((tx) => repo.claimReconciliations(tx, { now: at(40_000), leaseOwner: 'r4', leaseUntil: at(45_000), limit: 10 }));
      expect(again.map((t) => [t.attemptId, t.tries]).sort()).to.deep.equal([['att_lock_1', 0], ['att_pay_a_1', 1]]);
      expect(await database.transactor.run((tx) => repo.finishReconciliation(tx, { attemptId: 'att_pay_a_1', leaseOwner: 'r4', status: 'voided', tries: 2, nextAt: at(50_000), detail: { ok: true }, now: at(41_000) }))).to.equal(true);
      const rows = await database.db.orm.em.fork().execute(`select status, request from payment_reconciliations where attempt_id = 'att_pay_a_1'`);
      expect(rows[0].status).to.equal('voided');
      expect(typeof rows[0].request === 'string' ? JSON.parse(rows[0].request) : rows[0].request).to.deep.equal({});
      const late = await database.transactor.run((tx) => repo.claimReconciliations(tx, { now: at(999_000), leaseOwner: 'r5', leaseUntil: at(1_999_000), limit: 10 }));
      expect(late.map((t) => t.attemptId)).to.deep.equal(['att_lock_1']); // its claimer never finished: lease expired, claimable again
    });

    it('settleQueued: travels with the unit\'s writes; without the lease the whole unit rolls back and isLeaseLost says why', async () => {
      const payment = processingPayment({ id: 'pay_queued', organizationId: scope.organizationId, environment: scope.environment });
      await database.transactor.run(async (tx) => {
        await new SqlPaymentRepository().insert(tx, payment);
        await repo.open(tx, { scope, paymentId: 'pay_queued', request, accountIds: ['ca_1'], firstIntent: { attemptId: 'att_queued_1', connectorAccountId: 'ca_1', startedAt: T0.toISOString() }, leaseOwner: 'create:pay_queued', leaseUntil: at(5_000), now: T0 });
      });
      const reconcile = [{ attemptId: 'att_queued_1', connectorAccountId: 'ca_1', reversalKey: 'op_queued' }];
      const markPayment = (tx: Parameters<Parameters<MikroOrmTransactor['run']>[0]>[0], description: string) =>
        entityManager(tx).execute(`update payments set description = ? where id = 'pay_queued'`, [description]);
      const description = async () => (await database.db.orm.em.fork().execute(`select description from payments where id = 'pay_queued'`))[0].description;

      const lost = await database.transactor
        .run(async (tx) => {
          await repo.settleQueued(tx, { paymentId: 'pay_queued', leaseOwner: 'w_other', reconcile, now: T0 });
          await markPayment(tx, 'written by a stranger');
        })
        .then(() => null, (error: unknown) => error);
      expect(repo.isLeaseLost(lost)).to.equal(true);
      expect(repo.isLeaseLost(new Error('something else'))).to.equal(false);
      expect(await description()).to.not.equal('written by a stranger');
      expect((await database.db.orm.em.fork().execute(`select count(*)::int as n from payment_routings where payment_id = 'pay_queued'`))[0].n).to.equal(1);

      await database.transactor.run(async (tx) => {
        await repo.settleQueued(tx, { paymentId: 'pay_queued', leaseOwner: 'create:pay_queued', reconcile, now: T0 });
        await markPayment(tx, 'written by the holder');
      });
      expect(await description()).to.equal('written by the holder');
      expect((await database.db.orm.em.fork().execute(`select count(*)::int as n from payment_routings where payment_id = 'pay_queued'`))[0].n).to.equal(0);
      expect(await database.db.orm.em.fork().execute(`select reversal_key from payment_reconciliations where attempt_id = 'att_queued_1'`)).to.deep.equal([{ reversal_key: 'op_queued' }]);
    });
  });
}

suite('PostgreSQL', postgresTestDatabase);
suite('embedded PGlite', () => embeddedTestDatabase('pglite-rec-'));
