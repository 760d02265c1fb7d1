/**
 * MikroORM on PostgreSQL: one place that opens the connection pool, applies versioned migrations and
 * hands out units of work. Money columns are int8; the driver would return them as strings, so int8 is
 * parsed to a JS number here once (amounts stay far below 2^53).
 */
import { MikroORM, RequestContext, TransactionContext, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import pg from 'pg';
import type { CredentialCipher } from '../../domain/ports/credential-cipher';
import { MIGRATIONS } from './migrations';
import { withSealingCipher } from './migrations/sealing-cipher';
import { ENTITIES } from './entities';
import { databaseUnavailability } from './database-unavailability';
import type { Logger } from '../logging/logger';

pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value: string) => Number(value));

export type Orm = MikroORM;

export async function openOrm(clientUrl: string, poolSize: number, logger?: Logger): Promise<Orm> {
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
    // knex prints "Connection Error: <error>" with console.warn when it discards a broken pooled connection, and the
    // error's message can hold the statement it was running: one line of codes-free text instead.
    // `pipeline`: the driver writes each query as soon as it is queued instead of after the previous one's answer,
    // so the units of work's parameterized statements share a round trip (mikro-orm-transactor.ts).
    driverOptions: { log: knexLog(logger), connection: { pipeline: true } },
  };
  const orm = await MikroORM.init(options);
  labelUnavailability(orm);
  return orm;
}

/**
 * Every error of a statement run through MikroORM passes its exception converter: a database that cannot serve us
 * (database-unavailability.ts) is raised as a DependencyUnavailableError there, which carries no statement text.
 */
function labelUnavailability(orm: Orm): void {
  const converter = orm.em.getPlatform().getExceptionConverter();
  const convert = converter.convertException.bind(converter);
  converter.convertException = (error) => (databaseUnavailability(error) as unknown as ReturnType<typeof convert> | null) ?? convert(error);
}

function knexLog(logger: Logger | undefined) {
  const quiet = () => undefined;
  const warn = (message: unknown) => {
    const lostConnection = typeof message === 'string' && message.startsWith('Connection Error');
    if (lostConnection) logger?.warn('a pooled database connection failed and was discarded');
    else logger?.warn('knex warning');
  };
  return { warn, error: warn, deprecate: quiet, debug: quiet };
}

/**
 * Applies every pending migration; safe to run on each start and from several processes in turn. The cipher is
 * lent to the migrations that seal stored secrets (a database with none to seal, as in tests, needs none).
 */
export async function migrate(orm: Orm, options: { cipher?: CredentialCipher } = {}): Promise<string[]> {
  const applied = await withSealingCipher(options.cipher ?? null, () => orm.getMigrator().up());
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
