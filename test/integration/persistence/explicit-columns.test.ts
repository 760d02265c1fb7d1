import { expect } from 'chai';
import type { ApiKey } from '../../../domain/api-key/api-key';
import { SqlApiKeyRepository } from '../../../infrastructure/persistence/api-key.repository';
import { entityManager, MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import { createTestDatabase } from '../../support/test-infrastructure';

/**
 * Repositories name the columns they read: a prepared `select *` fails with 0A000 ("cached plan must not change
 * result type") once a migration adds a column to its table while the service runs, and a unit of work already
 * inside its transaction cannot be sent again, so it would fail.
 */
describe('repository reads survive a column added while their statements are prepared (PostgreSQL)', () => {
  let orm: Orm;
  let transactor: MikroOrmTransactor;
  const keys = new SqlApiKeyRepository();
  const key: ApiKey = {
    id: 'key_explicit',
    organizationId: 'org_explicit',
    environment: 'sandbox',
    name: 'Explicit columns',
    scopes: ['payments:read'],
    secretHash: 'hash_explicit',
    last4: 'abcd',
    createdAt: new Date('2026-11-26T10:00:00.000Z'),
    revokedAt: null,
  };

  before(async () => {
    // One connection: the lookup after the migration runs on the connection that prepared it.
    orm = await openOrm(await createTestDatabase(), 1);
    await migrate(orm);
    transactor = new MikroOrmTransactor(orm, { preparedStatements: true });
    await orm.em.fork({ useContext: false }).execute(`insert into organizations (id, name, created_at) values ('${key.organizationId}', 'Explicit', now())`);
    await transactor.run((tx) => keys.insert(tx, key));
  });
  after(() => orm.close(true));

  it('finds the same API key after `alter table api_keys add column`, inside a unit already in its transaction', async () => {
    const before = await transactor.read((tx) => keys.findActiveByHash(tx, key.secretHash));
    expect(before).to.include({ id: key.id, organizationId: key.organizationId, secretHash: key.secretHash, revokedAt: null });

    await orm.em.fork({ useContext: false }).execute('alter table api_keys add column extra_test_column text');

    const found = await transactor.run(async (tx) => {
      await entityManager(tx).execute('select 1'); // the unit's transaction has begun: a failed batch is not sent again
      return keys.findActiveByHash(tx, key.secretHash);
    });
    expect(found).to.deep.equal(before);
  });
});
