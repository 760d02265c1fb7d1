import { expect } from 'chai';
import pg from 'pg';
import { GroupCommit } from '../../../../infrastructure/persistence/group-commit';
import type { Statement } from '../../../../infrastructure/persistence/prepared-statements';

const write = (id: string): Statement => ({ sql: 'insert into t values (?)', params: [id] });
const LOCK_TIMEOUT = `set local lock_timeout = '50ms'`;

/** A database stand-in: records each query (one per round trip) and fails those that `refuse` picks. */
function database(refuse: (statements: readonly Statement[]) => Error | null = () => null) {
  const queries: string[][] = []; // the units' statements, without the group's lock timeout
  const sent: Array<readonly Statement[]> = [];
  const sendOnce = async (statements: readonly Statement[]) => {
    await new Promise((resolve) => setImmediate(resolve)); // an answer comes in a later turn, as from a socket
    sent.push(statements);
    queries.push(statements.filter((s) => s.sql !== LOCK_TIMEOUT).map((s) => String(s.params[0] ?? s.sql)));
    const refusal = refuse(statements);
    if (refusal) throw refusal;
  };
  return { queries, sent, sendOnce };
}

/** What PostgreSQL answers to a failed statement: the implicit transaction rolled back. */
const serverError = (message: string) => Object.assign(new pg.DatabaseError(message, 0, 'error'), { code: '23505' });

describe('group commit (write-only units of one event-loop turn share a round trip)', () => {
  it('sends the units committed in one turn as one query, in the order they committed', async () => {
    const db = database();
    const group = new GroupCommit(db.sendOnce);
    await Promise.all(['a', 'b', 'c'].map((id) => group.commit([write(id)])));
    expect(db.queries).to.deep.equal([['a', 'b', 'c']]);
  });

  it('opens a group with its lock timeout, so a unit waiting for a row lock holds the others back no longer than that', async () => {
    const db = database();
    const group = new GroupCommit(db.sendOnce);
    await Promise.all([group.commit([write('a')]), group.commit([write('b')])]);
    await group.commit([write('alone')]);
    expect(db.sent.map((statements) => statements[0]!.sql)).to.deep.equal([LOCK_TIMEOUT, 'insert into t values (?)']);
  });

  it('sends units of different turns in different queries', async () => {
    const db = database();
    const group = new GroupCommit(db.sendOnce);
    await group.commit([write('a')]);
    await group.commit([write('b')]);
    expect(db.queries).to.deep.equal([['a'], ['b']]);
  });

  it('splits a turn larger than maxUnits into several queries, each unit whole', async () => {
    const db = database();
    const group = new GroupCommit(db.sendOnce, 2);
    await Promise.all([[write('a1'), write('a2')], [write('b1')], [write('c1'), write('c2')]].map((unit) => group.commit(unit)));
    expect(db.queries).to.deep.equal([['a1', 'a2', 'b1'], ['c1', 'c2']]);
  });

  it('sends a unit that sets something for its transaction alone, at once', async () => {
    const db = database();
    const group = new GroupCommit(db.sendOnce);
    const settings: Statement = { sql: 'set local synchronous_commit = off', params: [] };
    await Promise.all([group.commit([write('a')]), group.commit([settings, write('marked')]), group.commit([write('b')])]);
    expect(db.queries).to.have.deep.members([['set local synchronous_commit = off', 'marked'], ['a', 'b']]);
  });

  it('when the database refused the group, sends each unit again alone: only the faulty one fails', async () => {
    const db = database((statements) => (statements.some((s) => s.params[0] === 'duplicate') ? serverError('duplicate key value') : null));
    const group = new GroupCommit(db.sendOnce);
    const outcomes = await Promise.allSettled([group.commit([write('a')]), group.commit([write('duplicate')]), group.commit([write('b')])]);
    expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).to.equal('duplicate key value');
    expect(db.queries).to.deep.equal([['a', 'duplicate', 'b'], ['a'], ['duplicate'], ['b']]);
  });

  it('when no answer came (the connection broke), fails every unit of the group and resends none', async () => {
    const broken = new Error('Connection terminated unexpectedly');
    const db = database((statements) => (statements.length > 1 ? broken : null));
    const group = new GroupCommit(db.sendOnce);
    const outcomes = await Promise.allSettled([group.commit([write('a')]), group.commit([write('b')])]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? o.reason : 'committed'))).to.deep.equal([broken, broken]);
    expect(db.queries).to.deep.equal([['a', 'b']]);
  });

  it('gives a unit alone in its turn the error it met', async () => {
    const db = database(() => serverError('duplicate key value'));
    const group = new GroupCommit(db.sendOnce);
    await expect(group.commit([write('a')])).to.be.rejectedWith('duplicate key value');
    expect(db.queries).to.deep.equal([['a']]);
  });
});
