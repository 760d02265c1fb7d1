import type { Platform } from '@mikro-orm/core';
import { formatSql, parameterizeSql } from './sql-literals';

/** One statement of a unit of work: SQL with `?` placeholders and their values, written out when it is sent. */
export interface Statement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** How a batch goes out on one connection. */
export interface RenderedBatch {
  /** The batch's statements, PREPAREs first (they then run whatever a later statement does). */
  readonly text: string[];
  /** Names this batch prepares on the connection: prepared once it was sent, whether it succeeded or not. */
  readonly preparing: readonly string[];
}

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
 * Server-side prepared statements for the units of work's simple-protocol batches. PostgreSQL parses, analyzes
 * and plans every statement it is sent as text; on a payment's statements (a CTE of three parts, inserts from
 * JSON records) that was about 45 % of the database's CPU under load (perf, 25 Nov). A statement prepared once per
 * connection is then sent as `EXECUTE name(literals...)`, which skips the analysis and, once PostgreSQL settles on
 * a generic plan, the planning; it still travels in the same multi-statement round trip as the unit's other
 * statements (the extended protocol would take one round trip per statement with this driver).
 *
 * A statement's text is first prepared alone, on a connection outside any transaction: PostgreSQL infers each
 * placeholder's type there, and a statement it cannot type (a value whose type only its literal spelling decides)
 * is never prepared again and keeps going as literal text. A statement that prepared once prepares on every other
 * connection inside any batch, at its head. Prepared statements outlive transactions, failed ones included (a
 * failed batch's PREPAREs ran before anything that could fail), so the connection keeps what it prepared. Should
 * the server not know a name after all, or a migration change the columns a prepared `select *` returns, the
 * connection drops every statement and prepares afresh (the transactor sends that batch again when nothing of its
 * unit ran before it; a unit already inside its transaction fails once).
 *
 * One registry per connection pool (`forPool`), since several transactors may share a pool and a name must mean
 * one text on each of its connections. Not for servers that share one session among connections (PGlite's socket
 * server) or poolers that hand a session to another client between transactions; the transactor is then built
 * without it.
 */
export class PreparedStatements {
  private static readonly pools = new WeakMap<object, PreparedStatements>();
  /** Statement names by template; null: PostgreSQL could not prepare it. */
  private readonly names = new Map<string, string | null>();
  /** What each connection of the pool has prepared. */
  private readonly held = new WeakMap<object, Set<string>>();
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
   * The batch as text for this connection. `probe` sends one statement in a round trip of its own (the PREPARE of a
   * statement never tried before, or a DEALLOCATE ALL) and answers the error if PostgreSQL refused; callers pass it
   * only when the connection is outside a transaction (a failed statement would abort one).
   */
  async render(connection: object, statements: readonly Statement[], probe: ((prepare: string) => Promise<unknown>) | null): Promise<RenderedBatch> {
    const held = this.heldBy(connection);
    // Outside a transaction only (in an aborted one DEALLOCATE would fail and keep the ROLLBACK behind it from
    // running), and before any probe of this batch, which would otherwise be dropped with the rest.
    if (probe && this.stale.has(connection)) {
      this.stale.delete(connection);
      await probe('deallocate all');
    }
    const prepares: string[] = [];
    const preparing: string[] = [];
    const text: string[] = [];
    for (const statement of statements) {
      const parameterized = parameterizeSql(this.platform, statement.sql, statement.params);
      if (!parameterized) {
        text.push(formatSql(this.platform, statement.sql, statement.params));
        continue;
      }
      let name = this.names.get(parameterized.template);
      if (name === undefined && probe && this.names.size < MAX_TEMPLATES) {
        const probed = `u${(this.probes += 1)}`;
        const refusal = await probe(`prepare ${probed} as ${parameterized.template}`);
        if (!refusal) held.add(probed);
        // Another unit may have probed the same text meanwhile: the first name registered is the one used. A
        // refusal for another reason than the statement itself (a lost connection, a cancel) decides nothing.
        if (!this.names.has(parameterized.template) && (!refusal || refusedForGood(refusal))) this.names.set(parameterized.template, refusal ? null : probed);
        name = this.names.get(parameterized.template);
      }
      if (!name) {
        text.push(formatSql(this.platform, statement.sql, statement.params));
        continue;
      }
      if (!held.has(name) && !preparing.includes(name)) {
        prepares.push(`prepare ${name} as ${parameterized.template}`);
        preparing.push(name);
      }
      text.push(`execute ${name}(${parameterized.args.join(', ')})`);
    }
    return { text: [...prepares, ...text], preparing };
  }

  /** After the batch went out: what it prepared is held, unless the server said the connection's statements are stale. */
  sent(connection: object, batch: RenderedBatch, error: unknown): void {
    const held = this.heldBy(connection);
    if (isStalePreparedStatement(error)) {
      held.clear();
      this.stale.add(connection);
      return;
    }
    for (const name of batch.preparing) held.add(name);
  }

  private heldBy(connection: object): Set<string> {
    let held = this.held.get(connection);
    if (!held) this.held.set(connection, (held = new Set()));
    return held;
  }
}
