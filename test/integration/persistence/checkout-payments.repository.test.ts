import { expect } from 'chai';
import { SqlCheckoutPayments } from '../../../infrastructure/persistence/checkout-payments.repository';
import { MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import { SqlPaymentRepository } from '../../../infrastructure/persistence/payment.repository';
import { processingPayment } from '../../support/builders/payment.builder';
import { recordRoundTrips } from '../../support/round-trip-recorder';
import { createTestDatabase } from '../../support/test-infrastructure';

/** The client secret check's read (every public checkout request): payments asked together share one statement. */
describe('checkout payments, read as committed (PostgreSQL)', function () {
  this.timeout(60_000);
  let orm: Orm;
  let transactor: MikroOrmTransactor;
  let database: string;

  before(async () => {
    const url = await createTestDatabase();
    database = new URL(url).pathname.slice(1);
    orm = await openOrm(url, 4);
    await migrate(orm);
    transactor = new MikroOrmTransactor(orm, { preparedStatements: true });
    await transactor.run(async (tx) => {
      await new SqlPaymentRepository().insert(tx, processingPayment({ id: 'pay_ck_1', organizationId: 'org_a', environment: 'sandbox' }));
      await new SqlPaymentRepository().insert(tx, processingPayment({ id: 'pay_ck_2', organizationId: 'org_b', environment: 'live' }));
    });
  });
  after(async () => {
    await orm?.close(true);
  });

  it('reads asked in the same turn go out as one statement, and each gets its own payment (or null)', async () => {
    const payments = new SqlCheckoutPayments(transactor);
    // A statement's first use prepares it in a round trip of its own (prepared-statements.ts).
    await payments.findCommitted('pay_ck_1');
    const recorder = recordRoundTrips(database);
    try {
      const found = await Promise.all(['pay_ck_2', 'pay_missing', 'pay_ck_1', 'pay_ck_2'].map((id) => payments.findCommitted(id)));
      expect(recorder.statements, recorder.statements.join('\n')).to.have.length(1);
      expect(found.map((p) => (p ? [p.view().id, p.view().organizationId, p.view().environment] : null))).to.deep.equal([
        ['pay_ck_2', 'org_b', 'live'],
        null,
        ['pay_ck_1', 'org_a', 'sandbox'],
        ['pay_ck_2', 'org_b', 'live'],
      ]);
      // Each caller gets a payment of its own to work on.
      expect(found[0]).not.to.equal(found[3]);
    } finally {
      recorder.stop();
    }
  });
});
