import pg from 'pg';
import { MikroOrmTransactor } from '../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../infrastructure/persistence/orm';
import { createTestDatabase } from './test-infrastructure';

/**
 * Records what reaches one database, one entry per round trip: the text of each query the `pg` driver sends, the
 * queries a unit hands the driver at once (pipelined: written together, answered together) joined by `;\n` in one
 * entry, so tests can prove how many round trips a unit of work costs and what they carry. `values` holds every
 * bound parameter sent, to show that values travel outside the text. Other suites' services keep running on other
 * databases meanwhile, hence the filter. `stop` puts the driver back.
 */
export function recordRoundTrips(database: string): { readonly statements: string[]; readonly values: unknown[]; stop(): void } {
  const statements: string[] = [];
  const values: unknown[] = [];
  const openEntries = new WeakMap<object, number>();
  const originalQuery = pg.Client.prototype.query;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (pg.Client.prototype as any).query = function (this: pg.Client, ...args: any[]) {
    if (this.database === database) {
      const text = String(typeof args[0] === 'string' ? args[0] : args[0]?.text);
      if (Array.isArray(args[0]?.values)) values.push(...args[0].values);
      const open = openEntries.get(this);
      if (open !== undefined && open < statements.length) statements[open] += `;\n${text}`;
      else {
        openEntries.set(this, statements.push(text) - 1);
        // Queries queued on a connection in the same synchronous run go out together.
        queueMicrotask(() => openEntries.delete(this));
      }
    }
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (originalQuery as any).apply(this, args);
  };
  return {
    statements,
    values,
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
  /** The values bound as parameters since the current test began. */
  values: unknown[];
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
    db.values = recorder.values;
  });
  after(async () => {
    recorder?.stop();
    await db.orm?.close(true);
  });
  beforeEach(() => {
    db.statements.length = 0;
    db.values.length = 0;
  });
  return db;
}
