import type { Platform } from '@mikro-orm/core';
import { literalSql, parameterizeSql } from './sql-statements';

/** One statement of a unit of work: SQL with `?` placeholders and their values, turned into a query when it is sent. */
export interface Statement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/**
 * One query as the `pg` driver takes it: text alone (the simple protocol), or text with `$n` placeholders and the
 * values bound to them (the extended protocol), under a name when the statement is prepared on the connection.
 */
export interface DriverQuery {
  readonly text: string;
  readonly values?: readonly unknown[];
  readonly name?: string;
}

/**
 * Sends one SQL text in a round trip of its own and answers the error if PostgreSQL refused it. `inTransaction`:
 * the connection is inside the unit's transaction, so the text must not abort it (the transactor wraps it in a
 * savepoint).
 */
export type Probe = (sql: string, inTransaction: boolean) => Promise<unknown>;

/** A bound on distinct statements kept prepared (per connection, in each database process serving one). */
const MAX_TEMPLATES = 1_000;

/**
 * Whether a connection's prepared statements no longer match the server: it holds no statement of a name sent
 * (SQLSTATE 26000: a DEALLOCATE or DISCARD from elsewhere), or a statement's result columns changed under it
 * (0A000 "cached plan must not change result type": a migration added a column to a table a `select *` reads).
 */
export function isStalePreparedStatement(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return code === '26000' || (code === '0A000' && /cached plan must not change result type/.test(message ?? ''));
}

/** A statement PostgreSQL refuses to prepare as written: syntax, types, names (class 42) or a feature (0A). */
function refusedForGood(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code ?? '';
  return code.startsWith('42') || code.startsWith('0A');
}

/**
 * What the `pg` driver knows a connection has prepared (it sends a named statement's Parse only the first time on
 * each connection). Not public API: forgotten only after the server dropped them all (DEALLOCATE ALL), so the
 * driver prepares each again instead of binding to a name the server no longer holds.
 */
function forgetDriverNames(connection: object): void {
  const wire = (connection as { connection?: { parsedStatements?: object; submittedNamedStatements?: object } }).connection;
  if (wire?.parsedStatements) wire.parsedStatements = {};
  if (wire?.submittedNamedStatements) wire.submittedNamedStatements = {};
}

/**
 * Statements as named, server-side prepared statements with their values as bind parameters (the extended
 * protocol). PostgreSQL parses, analyzes and plans every statement it is sent as text; on a payment's statements
 * (a CTE of three parts, inserts from JSON records) that was about 45 % of the database's CPU under load (perf,
 * 25 Nov). A named statement is parsed once per connection (the driver sends its Parse the first time only) and,
 * once PostgreSQL settles on a generic plan, not planned again; its values never appear in SQL text. The unit's
 * queries are pipelined by the driver, so they still travel in one round trip (mikro-orm-transactor.ts).
 *
 * A statement's text is first prepared alone (`PREPARE` then `DEALLOCATE`, no values): PostgreSQL infers each
 * placeholder's type there, and a statement it cannot type (a value whose type only its literal spelling decides)
 * is never tried again and goes as text, written by MikroORM's platform with `pg`'s escaping (sql-statements.ts).
 * Outside a transaction the probe is a round trip of its own; inside one, it runs under a savepoint, so a refusal
 * leaves the unit's transaction as it was. Should the server not know a name after all, or a migration change the
 * columns a prepared `select *` returns, the connection drops every statement and prepares afresh (the transactor
 * sends that batch again when nothing of its unit ran before it; a unit already inside its transaction fails once,
 * and its connection sends unnamed statements until it is outside a transaction again).
 *
 * One registry per connection pool (`forPool`), since several transactors may share a pool and a name must mean
 * one text on each of its connections. Not for servers that share one session among connections (PGlite's socket
 * server) or poolers that hand a session to another client between transactions; the transactor then sends text.
 */
export class PreparedStatements {
  private static readonly pools = new WeakMap<object, PreparedStatements>();
  /** Statement names by parameterized text; null: PostgreSQL could not prepare it. */
  private readonly names = new Map<string, string | null>();
  /** Connections whose statements went stale: they drop them all (DEALLOCATE ALL, a round trip of its own) before their next idle batch. */
  private readonly stale = new WeakSet<object>();
  private probes = 0;

  private constructor(private readonly platform: Platform) {}

  static forPool(pool: object, platform: Platform): PreparedStatements {
    let registry = PreparedStatements.pools.get(pool);
    if (!registry) PreparedStatements.pools.set(pool, (registry = new PreparedStatements(platform)));
    return registry;
  }

  /**
   * The batch as driver queries for this connection. `idle`: the connection is outside a transaction (a
   * DEALLOCATE ALL can run, and a probe needs no savepoint).
   */
  async render(connection: object, statements: readonly Statement[], idle: boolean, probe: Probe): Promise<DriverQuery[]> {
    // Outside a transaction only (in an aborted one DEALLOCATE would fail and keep the ROLLBACK behind it from
    // running), and before any probe of this batch, which would otherwise be dropped with the rest.
    if (idle && this.stale.has(connection)) {
      const refusal = await probe('deallocate all', false);
      if (!refusal) {
        this.stale.delete(connection);
        forgetDriverNames(connection);
      }
    }
    const queries: DriverQuery[] = [];
    for (const statement of statements) {
      const parameterized = parameterizeSql(this.platform, statement.sql, statement.params);
      if (!parameterized) {
        queries.push({ text: literalSql(this.platform, statement.sql, statement.params) });
        continue;
      }
      if (parameterized.values.length === 0) {
        queries.push({ text: parameterized.text });
        continue;
      }
      let name = this.names.get(parameterized.text);
      if (name === undefined && this.names.size < MAX_TEMPLATES) {
        const probed = `u${(this.probes += 1)}`;
        const refusal = await probe(`prepare ${probed} as ${parameterized.text}; deallocate ${probed}`, !idle);
        // Another unit may have probed the same text meanwhile: the first name registered is the one used. A
        // refusal for another reason than the statement itself (a lost connection, a cancel) decides nothing.
        if (!this.names.has(parameterized.text) && (!refusal || refusedForGood(refusal))) this.names.set(parameterized.text, refusal ? null : probed);
        name = this.names.get(parameterized.text);
      }
      if (!name) {
        queries.push({ text: literalSql(this.platform, statement.sql, statement.params) });
        continue;
      }
      // A connection whose names went stale binds unnamed statements until it can drop them all.
      queries.push(this.stale.has(connection) ? { text: parameterized.text, values: parameterized.values } : { text: parameterized.text, values: parameterized.values, name });
    }
    return queries;
  }

  /** After the batch went out: a connection the server says holds stale statements drops them before its next idle batch. */
  sent(connection: object, error: unknown): void {
    if (isStalePreparedStatement(error)) this.stale.add(connection);
  }
}
