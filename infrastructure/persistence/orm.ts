/**
 * MikroORM on PostgreSQL: one place that opens the connection pool, applies versioned migrations and
 * hands out units of work. Money columns are int8; the driver would return them as strings, so int8 is
 * parsed to a JS number here once (amounts stay far below 2^53).
 */
import { MikroORM, RequestContext, TransactionContext, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import pg from 'pg';
import { MIGRATIONS } from './migrations';
import { ENTITIES } from './entities';

pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value: string) => Number(value));

export type Orm = MikroORM;

export async function openOrm(clientUrl: string, poolSize: number): Promise<Orm> {
  const options: Options = {
    clientUrl,
    entities: ENTITIES,
    discovery: { warnWhenNoEntities: false, requireEntitiesArray: true },
    extensions: [Migrator],
    migrations: {
      migrationsList: MIGRATIONS,
      tableName: 'schema_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
    pool: { min: 0, max: poolSize },
    forceUtcTimezone: true,
    allowGlobalContext: false,
    debug: false,
  };
  return MikroORM.init(options);
}

/** Applies every pending migration; safe to run on each start and from several processes in turn. */
export async function migrate(orm: Orm): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  switchOffAsyncContext();
  return applied.map((migration) => migration.name);
}

/**
 * The migrator runs in MikroORM's AsyncLocalStorage contexts, and one AsyncLocalStorage run switches
 * Node's promise hooks on for the whole process, for good: a tax on every promise (a seventh of a
 * payment's CPU when measured). The service never uses those contexts (units of work pass their entity
 * manager explicitly, forks use no context), so they are disabled again once migrations are done.
 */
function switchOffAsyncContext(): void {
  for (const holder of [RequestContext, TransactionContext] as unknown as Array<{ storage?: { disable(): void } }>) holder.storage?.disable();
}
