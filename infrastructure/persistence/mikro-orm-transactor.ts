import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import type { Transaction, Transactor } from '../../domain/ports/transactor';
import type { Orm } from './orm';

/**
 * One unit of work. Statements that must answer now (reads, writes with RETURNING) run at once; writes
 * whose answer nobody needs are queued with `deferWrite` and leave together at commit. A unit of work that
 * only queued writes costs ONE round trip: the statements travel as one multi-statement query, which
 * PostgreSQL runs as a single implicit transaction (all or nothing). A unit that also reads opens a real
 * transaction at its first read and sends the queued writes just before each read and at commit.
 *
 * Round trips are what a payment pays for most on a loaded server, hence the care.
 */
class UnitOfWork {
  /** The open database transaction, driven on the connection directly (see `ready`). */
  private transaction: Knex.Transaction | null = null;
  private pending: string[] = [];
  /** Set by the outbox: only units that wrote events wake the relay. */
  wroteEvents = false;

  constructor(readonly em: EntityManager, readonly transactional: boolean) {}

  /** The entity manager, ready for a statement that answers now: transaction open, queued writes sent. */
  async ready(): Promise<EntityManager> {
    if (this.transactional && !this.transaction) {
      // Begun and committed on the connection rather than with em.begin()/em.commit(): the latter flush
      // MikroORM's entity unit of work inside an AsyncLocalStorage, which switches Node's promise hooks on
      // for the whole process (a tax on every promise), and these units have no entities to flush.
      this.transaction = await this.em.getConnection().begin();
      this.em.setTransactionContext(this.transaction);
    }
    await this.flushPending();
    return this.em;
  }

  async defer(sql: string, params: readonly unknown[]): Promise<void> {
    const statement = this.em.getPlatform().formatQuery(sql, [...params]);
    if (!this.transactional) {
      await this.em.execute(statement, [], 'run');
      return;
    }
    this.pending.push(statement);
  }

  private async flushPending(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending.join(';\n');
    this.pending = [];
    await this.em.execute(batch, [], 'run');
  }

  async commit(): Promise<void> {
    await this.flushPending();
    if (!this.transaction) return;
    const transaction = this.transaction;
    this.transaction = null;
    this.em.resetTransactionContext();
    await this.em.getConnection().commit(transaction);
  }

  async rollback(): Promise<void> {
    this.pending = [];
    if (!this.transaction) return;
    const transaction = this.transaction;
    this.transaction = null;
    this.em.resetTransactionContext();
    await this.em.getConnection().rollback(transaction);
  }
}

const UNITS = new WeakMap<object, UnitOfWork>();

/**
 * The entity manager behind an opaque Transaction handle (repositories are the only ones to unwrap it).
 * Its `execute` first opens the unit's transaction (if it is one) and sends any queued writes, so reads
 * always see the unit's own writes.
 */
export function entityManager(tx: Transaction): EntityManager {
  return tx as unknown as EntityManager;
}

/**
 * Queues a write whose result nobody reads; it is sent with the unit's next statement or at commit, in
 * the same round trip. Errors (constraint violations) therefore surface when the unit commits: use
 * `entityManager(tx).execute` for writes whose failure the caller handles, or that must RETURN rows.
 */
export async function deferWrite(tx: Transaction, sql: string, params: readonly unknown[] = []): Promise<void> {
  const unit = UNITS.get(tx as unknown as object);
  if (!unit) {
    await (tx as unknown as EntityManager).execute(sql, [...params], 'run');
    return;
  }
  await unit.defer(sql, params);
}

/** The outbox calls this when it appended events in the unit, so the relay is woken after commit. */
export function noteEventsWritten(tx: Transaction): void {
  const unit = UNITS.get(tx as unknown as object);
  if (unit) unit.wroteEvents = true;
}

function handleFor(unit: UnitOfWork): Transaction {
  // The handle repositories receive: the entity manager with `execute` routed through the unit.
  const handle = new Proxy(unit.em, {
    get(target, property, receiver) {
      if (property === 'execute') {
        return async (...args: Parameters<EntityManager['execute']>) => (await unit.ready()).execute(...args);
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  UNITS.set(handle, unit);
  return handle as unknown as Transaction;
}

/**
 * Units of work on forked entity managers. Listeners run after a commit that wrote events succeeds (the
 * outbox relay is nudged that way, so events leave within milliseconds instead of at the next poll).
 */
export class MikroOrmTransactor implements Transactor {
  private readonly afterCommitListeners: Array<() => void> = [];

  constructor(private readonly orm: Orm) {}

  onCommit(listener: () => void): void {
    this.afterCommitListeners.push(listener);
  }

  async run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const unit = new UnitOfWork(this.orm.em.fork({ clear: true, useContext: false }), true);
    let result: T;
    try {
      result = await work(handleFor(unit));
      await unit.commit();
    } catch (error) {
      await unit.rollback().catch(() => undefined);
      throw error;
    }
    if (unit.wroteEvents) for (const listener of this.afterCommitListeners) listener();
    return result;
  }

  async read<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return work(handleFor(new UnitOfWork(this.orm.em.fork({ clear: true, useContext: false }), false)));
  }
}
