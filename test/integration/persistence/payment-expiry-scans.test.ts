import { expect } from 'chai';
import type { Payment } from '../../../domain/payment/payment';
import { EXPIRING_AUTHORIZATIONS_SQL, SqlPaymentRepository, UNFINISHED_EXPIRY_ACTIONS_SQL } from '../../../infrastructure/persistence/payment.repository';
import { authorizedPayment, capturedPayment, withPrimitives } from '../../support/builders/payment.builder';
import { embeddedTestDatabase, postgresTestDatabase, useMigratedDatabase, type TestDatabase } from '../../support/test-databases';

const scope = { organizationId: 'org_expiry_scan', environment: 'sandbox' as const };
const FAR_FUTURE = new Date('2099-01-01T00:00:00.000Z');

/**
 * The authorization-expiry job's scans (payment.repository.ts) find uncaptured pre-authorizations through the partial
 * index payments_uncaptured_authorizations (Migration20261204000100UncapturedAuthorizations), not by reading every
 * payment.
 */
function suite(name: string, open: () => Promise<TestDatabase>) {
  describe(`payment repository, authorization-expiry scans (${name})`, function () {
    this.timeout(60_000);
    const database = useMigratedDatabase(open);
    const payments = new SqlPaymentRepository();
    const save = (payment: Payment) => database.transactor.run((tx) => payments.insert(tx, payment));
    /** The plan PostgreSQL chooses for a scan when it may read the table only if nothing else serves. */
    const planOf = async (sql: string, params: unknown[]) => {
      const em = database.db.orm.em.fork();
      return em.transactional(async (tx) => {
        await tx.execute('set local enable_seqscan = off');
        const rows = await tx.execute<Array<Record<string, string>>>(`explain ${sql}`, params);
        return rows.map((row) => Object.values(row)[0]).join('\n');
      });
    };

    before(async () => {
      await save(authorizedPayment({ id: 'pay_scan_uncaptured', organizationId: scope.organizationId, environment: scope.environment }));
      await save(capturedPayment({ id: 'pay_scan_captured', organizationId: scope.organizationId, environment: scope.environment }));
      const noticed = authorizedPayment({ id: 'pay_scan_noticed', organizationId: scope.organizationId, environment: scope.environment });
      await save(withPrimitives(noticed, { expiryNoticeAt: noticed.view().updatedAt, expiryAction: 'capture' }));
    });

    it('finds the uncaptured authorizations due for their notice, and the noticed ones whose near-expiry action is not done', async () => {
      const due = await database.transactor.read((tx) => payments.findExpiringAuthorizations(tx, FAR_FUTURE, 10));
      expect(due.map((p) => p.id)).to.deep.equal(['pay_scan_uncaptured']);
      const unfinished = await database.transactor.read((tx) => payments.findUnfinishedExpiryActions(tx, new Date(0), 10));
      expect(unfinished.map((p) => p.id)).to.deep.equal(['pay_scan_noticed']);
    });

    it('both scans read the partial index of uncaptured authorizations, never every payment', async () => {
      for (const [sql, params] of [
        [EXPIRING_AUTHORIZATIONS_SQL, [FAR_FUTURE, 10]],
        [UNFINISHED_EXPIRY_ACTIONS_SQL, [new Date(0), 10]],
      ] as const) {
        const plan = await planOf(sql, [...params]);
        expect(plan).to.include('payments_uncaptured_authorizations');
        expect(plan).not.to.match(/Seq Scan on payments/);
      }
    });
  });
}

suite('PostgreSQL', postgresTestDatabase);
suite('embedded PGlite', () => embeddedTestDatabase('pglite-expiry-scan-'));
