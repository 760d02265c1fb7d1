/**
 * Group commit, done by the application. Units of work made only of queued writes (they read nothing, so no
 * transaction is held open) and committing in the same turn of the event loop leave together: ONE multi-statement
 * query on one pooled connection, which PostgreSQL runs as one implicit transaction.
 *
 * Why: under load the pool, not PostgreSQL, was the limit. A round trip holds its connection until this process's
 * event loop gets round to the answer (6-8 ms on average with 50 payments in flight), and a payment commits twice,
 * so ten connections carried about 700 payments/s whatever the database could do; a larger pool was slower still
 * (more database processes competing for the same two cores). Measured on 26 Nov with 50 clients: 15-17 units per
 * group, payments/s up by a fifth to a half, in one process and across processes alike.
 *
 * A group is all or nothing, so one unit's failure (a duplicate key, a routing lease lost, a lock waited for too
 * long: GROUP_LOCK_TIMEOUT) fails its companions with it. When PostgreSQL answered with an error, nothing of the group was committed, and each unit is sent again
 * alone, so that each gets the outcome it would have had alone. When no answer came (the connection broke: the
 * group may or may not have committed), every unit fails with that error, as a unit alone would; none is resent,
 * which could apply it twice.
 */
import pg from 'pg';
import type { Statement } from './prepared-statements';

interface WaitingUnit {
  readonly statements: readonly Statement[];
  resolve(): void;
  reject(error: unknown): void;
}

/** Sends statements as one query on a connection of the pool (an implicit transaction), and releases it. */
export type SendOnce = (statements: readonly Statement[]) => Promise<unknown>;

/**
 * A statement that sets something for the rest of its transaction (`set local synchronous_commit = off`) would set
 * it for every unit of the group: such a unit is sent alone.
 */
function canShareTransaction(statement: Statement): boolean {
  return !/^\s*set\s/i.test(statement.sql);
}

/**
 * A group waits for a row lock at most this long; then PostgreSQL refuses it (lock_not_available, nothing committed)
 * and its units are sent again alone, each waiting as long as it would have alone. So one unit that waits for a
 * row another transaction holds keeps its companions waiting no longer than this, and two groups whose units wait
 * on each other (a deadlock PostgreSQL breaks only after deadlock_timeout, a second) part after this too.
 */
const GROUP_LOCK_TIMEOUT: Statement = { sql: `set local lock_timeout = '50ms'`, params: [] };

/** PostgreSQL's error answer: the implicit transaction ended, rolled back. */
function answeredByServer(error: unknown): boolean {
  return error instanceof pg.DatabaseError;
}

export class GroupCommit {
  private waiting: WaitingUnit[] = [];
  private flushScheduled = false;

  /** `maxUnits` bounds one query's size; a larger queue leaves as several groups, on as many connections. */
  constructor(
    private readonly sendOnce: SendOnce,
    private readonly maxUnits = 64,
  ) {}

  /** Resolves once the unit's statements are committed; rejects with the error it would have met alone. */
  commit(statements: readonly Statement[]): Promise<void> {
    if (!statements.every(canShareTransaction)) return this.sendOnce(statements).then(() => undefined);
    return new Promise((resolve, reject) => {
      this.waiting.push({ statements, resolve, reject });
      if (this.flushScheduled) return;
      this.flushScheduled = true;
      // After the I/O callbacks of this turn, so every unit those callbacks committed is in the group.
      setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const waiting = this.waiting;
    this.waiting = [];
    for (let start = 0; start < waiting.length; start += this.maxUnits) void this.send(waiting.slice(start, start + this.maxUnits));
  }

  private async send(group: readonly WaitingUnit[]): Promise<void> {
    try {
      await this.sendOnce(group.length === 1 ? group[0]!.statements : [GROUP_LOCK_TIMEOUT, ...group.flatMap((unit) => unit.statements)]);
    } catch (error) {
      if (group.length === 1 || !answeredByServer(error)) {
        for (const unit of group) unit.reject(error);
        return;
      }
      for (const unit of group) this.sendOnce(unit.statements).then(() => unit.resolve(), (alone: unknown) => unit.reject(alone));
      return;
    }
    for (const unit of group) unit.resolve();
  }
}
