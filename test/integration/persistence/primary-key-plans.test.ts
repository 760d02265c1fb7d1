import { expect } from 'chai';
import { entityManager, MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import { SqlPaymentRepository } from '../../../infrastructure/persistence/payment.repository';
import type { Transaction } from '../../../domain/ports/transactor';
import { processingPayment } from '../../support/builders/payment.builder';
import { createTestDatabase } from '../../support/test-infrastructure';

/**
 * A payment looked up or written by id reads that one row, also before PostgreSQL has statistics of the table
 * (a new database, the first minute of traffic). Without them the planner preferred the tenant-leading indexes and
 * read every payment of the tenant for each statement (see tenant-guard.ts).
 */
describe('statements by payment id use the primary key, statistics or not (PostgreSQL)', () => {
  let orm: Orm;
  let transactor: MikroOrmTransactor;
  const scope = { organizationId: 'org_plans', environment: 'sandbox' as const };
  const payments = new SqlPaymentRepository();
  const TENANT_ROWS = 3_000;

  before(async () => {
    orm = await openOrm(await createTestDatabase(), 2);
    await migrate(orm);
    transactor = new MikroOrmTransactor(orm);
    const sql = (text: string) => orm.em.fork({ useContext: false }).execute(text);
    // No statistics for the whole test: autovacuum would analyze the table after this many inserts.
    await sql(`alter table payments set (autovacuum_enabled = false)`);
    await sql(`insert into organizations (id, name, created_at) values ('${scope.organizationId}', 'Plans', now())`);
    await sql(`insert into payments (id, organization_id, environment, status, amount, currency, method_type, capture_method, captured_amount,
                 refunded_amount, initiator, attempt_count, doc, created_at, updated_at)
               select 'pay_fill_' || g, '${scope.organizationId}', '${scope.environment}', 'captured', 1990, 'BRL', 'card', 'automatic', 1990,
                 0, 'merchant', 1, '{}'::jsonb, now(), now()
                 from generate_series(1, ${TENANT_ROWS}) g`);
    await transactor.run((tx) => payments.insert(tx, processingPayment({ id: 'pay_plans', ...scope })));
  });
  after(() => orm.close(true));

  /** Payment rows the statements of this transaction so far read, by index scans and by sequential scans. */
  async function rowsRead(tx: Transaction): Promise<{ byIndex: number; sequentially: number; indexScans: number }> {
    const [row] = await entityManager(tx).execute<Array<{ fetched: string; seq: string; scans: string }>>(
      `select idx_tup_fetch::text as fetched, seq_tup_read::text as seq, idx_scan::text as scans from pg_stat_xact_user_tables where relname = 'payments'`,
    );
    return { byIndex: Number(row.fetched), sequentially: Number(row.seq), indexScans: Number(row.scans) };
  }

  it('finds, updates, claims, reads the pending operation of and releases one payment reading only its row', async () => {
    const intent = { operationId: 'op_1', kind: 'capture' as const, amount: 100 };
    const now = new Date();
    const schedule = { settleAfter: new Date(now.getTime() + 30_000), settleTries: 1 };
    const read = await transactor.run(async (tx) => {
      const payment = await payments.find(tx, scope, 'pay_plans', { forUpdate: true });
      expect(payment?.id).to.equal('pay_plans');
      await payments.update(tx, payment!);
      expect((await payments.findWithPendingOperation(tx, scope, 'pay_plans', { now }))?.pending).to.equal(null);
      expect(await payments.claimOperation(tx, scope, 'pay_plans', { claimId: 'clm_1', intent, until: new Date(now.getTime() + 60_000), now })).to.equal(true);
      expect((await payments.findWithPendingOperation(tx, scope, 'pay_plans', { forUpdate: true, now }))?.pending).to.deep.equal({ intent, active: true });
      await payments.releaseOperation(tx, scope, 'pay_plans', 'clm_1', schedule);
      expect((await payments.findWithPendingOperation(tx, scope, 'pay_plans', { now }))?.pending).to.deep.equal({
        intent: { ...intent, settleAfter: schedule.settleAfter.toISOString(), settleTries: 1 },
        active: false,
      });
      await payments.settleOperation(tx, scope, 'pay_plans', { operationId: 'op_1' });
      return rowsRead(tx);
    });
    // Eight statements, one row each (an update may visit the row's previous version too); the tenant has 3,001.
    expect(read.indexScans).to.be.at.least(8);
    expect(read.sequentially).to.equal(0);
    expect(read.byIndex, 'payment rows read through indexes').to.be.at.most(16);
  });

  it('still refuses the payment to another tenant', async () => {
    const other = { organizationId: 'org_other', environment: 'sandbox' as const };
    expect(await transactor.read((tx) => payments.find(tx, other, 'pay_plans'))).to.equal(null);
    expect(await transactor.read((tx) => payments.find(tx, { ...scope, environment: 'live' }, 'pay_plans'))).to.equal(null);
    expect(await transactor.run((tx) => payments.claimOperation(tx, other, 'pay_plans', { claimId: 'clm_2', intent: { operationId: 'op_2', kind: 'void', amount: null }, until: new Date(Date.now() + 60_000), now: new Date() }))).to.equal(false);
  });
});
