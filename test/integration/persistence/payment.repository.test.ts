import { expect } from 'chai';
import type { Payment } from '../../../domain/payment/payment';
import type { PaymentVersion } from '../../../domain/ports/payment-repositories';
import { SqlPaymentRecoveryRepository } from '../../../infrastructure/persistence/payment-recovery.repository';
import { SqlPaymentRepository } from '../../../infrastructure/persistence/payment.repository';
import { processingPayment, withPrimitives } from '../../support/builders/payment.builder';
import { embeddedTestDatabase, postgresTestDatabase, useMigratedDatabase, type TestDatabase } from '../../support/test-databases';

const T0 = new Date('2026-08-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms).toISOString();
const scope = { organizationId: 'org_guard', environment: 'sandbox' as const };

/**
 * updateIfUnchanged (the checkout confirm's tx1): a payment write guarded on the payment as it was read, queued with
 * the unit's other writes; a stale one rolls the whole unit back (payment_unchanged, SQLSTATE PL002). And how a
 * payment's row is stored (Migration20261203000100PaymentDocumentsUncompressed).
 */
function suite(name: string, open: () => Promise<TestDatabase>) {
  describe(`payment repository, guarded update (${name})`, function () {
    this.timeout(60_000);
    const database = useMigratedDatabase(open);
    const payments = new SqlPaymentRepository();
    const recovery = new SqlPaymentRecoveryRepository();

    const versionOf = (p: Payment): PaymentVersion => ({ status: p.status, updatedAt: p.view().updatedAt, checkoutAttemptsUsed: p.view().checkout?.attemptsUsed ?? 0 });
    const stored = async (id: string) => (await database.db.orm.em.fork().execute(`select description, updated_at from payments where id = ?`, [id]))[0];
    const routings = async (id: string) => (await database.db.orm.em.fork().execute(`select count(*)::int as n from payment_routings where payment_id = ?`, [id]))[0].n;
    /** What tx1 does: the payment written under the guard, then the routing record, all queued. */
    const tx1 = (changed: Payment, readAs: PaymentVersion) =>
      database.transactor
        .run(async (tx) => {
          await payments.updateIfUnchanged(tx, changed, readAs);
          await recovery.open(tx, { scope, paymentId: changed.id, request: { paymentId: changed.id, source: { type: 'card', token: 'tok' }, amount: 100, currency: 'BRL', capture: true }, accountIds: ['ca_1'], firstIntent: { attemptId: `att_${changed.id}_${changed.view().description}`, connectorAccountId: 'ca_1', startedAt: T0.toISOString() }, leaseOwner: `resume:${changed.id}`, leaseUntil: new Date(at(60_000)), now: T0 });
        })
        .then(() => null, (error: unknown) => error);
    const insert = async (id: string) => {
      const payment = withPrimitives(processingPayment({ id, organizationId: scope.organizationId, environment: scope.environment }), { updatedAt: at(0), description: 'as read' });
      await database.transactor.run((tx) => payments.insert(tx, payment));
      return payment;
    };

    it('writes the payment and the unit\'s other writes when the stored payment is still as read', async () => {
      const read = await insert('pay_guard_ok');
      expect(await tx1(withPrimitives(read, { description: 'confirmed', updatedAt: at(1_000) }), versionOf(read))).to.equal(null);
      expect(await stored('pay_guard_ok')).to.include({ description: 'confirmed' });
      expect(await routings('pay_guard_ok')).to.equal(1);
    });

    it('refuses a stale write: another request changed it since it was read; nothing of the unit is kept', async () => {
      const read = await insert('pay_guard_stale');
      // Another request changed it meanwhile (its version moved).
      await database.transactor.run((tx) => payments.update(tx, withPrimitives(read, { description: 'changed meanwhile', updatedAt: at(500) })));
      const refused = await tx1(withPrimitives(read, { description: 'stale', updatedAt: at(1_000) }), versionOf(read));
      expect(payments.isChangedMeanwhile(refused), String(refused)).to.equal(true);
      expect(payments.isChangedMeanwhile(new Error('something else'))).to.equal(false);
      expect(await stored('pay_guard_stale')).to.include({ description: 'changed meanwhile' });
      expect(await routings('pay_guard_stale')).to.equal(0);
    });

    it('compares the status and the checkout attempt count too, and an unknown payment is refused', async () => {
      const read = await insert('pay_guard_fields');
      const changed = withPrimitives(read, { description: 'x', updatedAt: at(1_000) });
      expect(payments.isChangedMeanwhile(await tx1(changed, { ...versionOf(read), status: 'requires_payment_method' }))).to.equal(true);
      expect(payments.isChangedMeanwhile(await tx1(changed, { ...versionOf(read), checkoutAttemptsUsed: 1 }))).to.equal(true);
      expect(payments.isChangedMeanwhile(await tx1(withPrimitives(read, { id: 'pay_guard_none' }), versionOf(read)))).to.equal(true);
      expect(await stored('pay_guard_fields')).to.include({ description: 'as read' });
      expect(await routings('pay_guard_fields')).to.equal(0);
    });

    it('two writes from the same read committed in one turn (one group): exactly one is kept', async () => {
      const read = await insert('pay_guard_race');
      const results = await Promise.all(['first', 'second'].map((description) => tx1(withPrimitives(read, { description, updatedAt: at(1_000) }), versionOf(read))));
      expect(results.filter((r) => r === null)).to.have.length(1);
      expect(payments.isChangedMeanwhile(results.find((r) => r !== null))).to.equal(true);
      const kept = results.findIndex((r) => r === null) === 0 ? 'first' : 'second';
      expect(await stored('pay_guard_race')).to.include({ description: kept });
      expect(await routings('pay_guard_race')).to.equal(1);
    });

    it('a document past 2 KB (a captured payment\'s) is stored inline and uncompressed, so no write compresses it and no read or index expression decompresses it', async () => {
      const payment = withPrimitives(processingPayment({ id: 'pay_doc_inline', organizationId: scope.organizationId, environment: scope.environment }), { description: 'a'.repeat(3_000) });
      await database.transactor.run((tx) => payments.insert(tx, payment));
      const [row] = await database.db.orm.em.fork().execute(`select pg_column_compression(doc) as compression, octet_length(doc::text) as length from payments where id = ?`, ['pay_doc_inline']);
      expect(Number(row.length)).to.be.greaterThan(3_000);
      // Under PostgreSQL's default target this highly compressible document is stored pglz-compressed.
      expect(row.compression).to.equal(null);
    });
  });
}

suite('PostgreSQL', postgresTestDatabase);
suite('embedded PGlite', () => embeddedTestDatabase('pglite-guard-'));
