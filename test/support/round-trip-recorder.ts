import pg from 'pg';
import { MikroOrmTransactor } from '../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../infrastructure/persistence/orm';
import { createTestDatabase } from './test-infrastructure';

/**
 * Records what reaches one database, one entry per round trip (the text of each query the `pg` driver sends), to
 * prove how many round trips a unit of work costs and what they carry. Other suites' services keep running on
 * other databases meanwhile, hence the filter. `stop` puts the driver back.
 */
export function recordRoundTrips(database: string): { readonly statements: string[]; stop(): void } {
  const statements: string[] = [];
  const originalQuery = pg.Client.prototype.query;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (pg.Client.prototype as any).query = function (this: pg.Client, ...args: any[]) {
    if (this.database === database) statements.push(String(typeof args[0] === 'string' ? args[0] : args[0]?.text));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (originalQuery as any).apply(this, args);
  };
  return {
    statements,
    stop: () => {
      pg.Client.prototype.query = originalQuery;
    },
  };
}

/** A database of its own for a suite of units of work, with what reaches it recorded (see recordRoundTrips). */
export interface RecordedDatabase {
  /** The database's URL, for a client of a test's own (another transaction). */
  url: string;
  orm: Orm;
  transactor: MikroOrmTransactor;
  /** What reached the database since the current test began, one entry per round trip. */
  statements: string[];
}

/**
 * Registers the suite's hooks: a fresh migrated database with `tableDdl` applied, a transactor on a pool of four
 * connections, round trips recorded and cleared before each test. The returned object is filled in `before`.
 */
export function useRecordedDatabase(tableDdl: string, options: { preparedStatements: boolean }): RecordedDatabase {
  const db = {} as RecordedDatabase;
  let recorder: ReturnType<typeof recordRoundTrips>;
  before(async () => {
    const url = await createTestDatabase();
    db.url = url;
    db.orm = await openOrm(url, 4);
    await migrate(db.orm);
    await db.orm.em.fork().execute(tableDdl);
    db.transactor = new MikroOrmTransactor(db.orm, options);
    recorder = recordRoundTrips(new URL(url).pathname.slice(1));
    db.statements = recorder.statements;
  });
  after(async () => {
    recorder?.stop();
    await db.orm?.close(true);
  });
  beforeEach(() => {
    db.statements.length = 0;
  });
  return db;
}
