/**
 * The two databases a persistence suite runs on: a fresh PostgreSQL database of the test server (prepared statements),
 * and an embedded PGlite in a temporary folder (no prepared statements: its socket server runs all connections in one
 * session, config.ts usePreparedStatements). Each is opened unmigrated, with a pool of four.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedDatabase } from '../../infrastructure/persistence/embedded-database';
import { MikroOrmTransactor } from '../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../infrastructure/persistence/orm';
import { createTestDatabase } from './test-infrastructure';

export interface TestDatabase {
  readonly orm: Orm;
  readonly preparedStatements: boolean;
  stop(): Promise<void>;
}

export async function postgresTestDatabase(): Promise<TestDatabase> {
  const orm = await openOrm(await createTestDatabase(), 4);
  return { orm, preparedStatements: true, stop: () => orm.close(true) };
}

/** `prefix` names the temporary folder (os.tmpdir()), removed on stop. */
export async function embeddedTestDatabase(prefix: string): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const embedded = await startEmbeddedDatabase(dataDir);
  const orm = await openOrm(embedded.url, 4);
  return {
    orm,
    preparedStatements: false,
    stop: async () => {
      await orm.close(true);
      await embedded.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * For a describe block: the database `open` gives, migrated in `before` and stopped in `after`, with a transactor on
 * it (prepared statements as the database allows). Read its fields inside the tests, once `before` ran.
 */
export function useMigratedDatabase(open: () => Promise<TestDatabase>): { readonly db: TestDatabase; readonly transactor: MikroOrmTransactor } {
  const used = {} as { db: TestDatabase; transactor: MikroOrmTransactor };
  before(async () => {
    used.db = await open();
    await migrate(used.db.orm);
    used.transactor = new MikroOrmTransactor(used.db.orm, { preparedStatements: used.db.preparedStatements });
  });
  after(async () => {
    await used.db?.stop();
  });
  return used;
}
