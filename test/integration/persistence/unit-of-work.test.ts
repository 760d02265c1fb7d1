import pg from 'pg';
import { expect } from 'chai';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { UlidIdGenerator } from '../../../infrastructure/clock/ulid-id-generator';
import { SqlEventOutbox } from '../../../infrastructure/messaging/sql-event-outbox';
import { MikroOrmTransactor, deferWrite, entityManager } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import { useRecordedDatabase } from '../../support/round-trip-recorder';
import { createTestDatabase } from '../../support/test-infrastructure';
import { awkwardStrings } from '../../support/awkward-strings';

describe('units of work (MikroORM transactor with queued writes)', () => {
  // Statements as literal text here, to show the batching alone (prepared-statements.test.ts: the same units prepared).
  const db = useRecordedDatabase('create table uow_items (id text primary key, n int not null)', { preparedStatements: false });

  const count = async (prefix: string) =>
    Number((await db.orm.em.fork().execute(`select count(*)::int as n from uow_items where id like ?`, [`${prefix}%`]))[0].n);

  it('sends a unit of queued writes as one round trip, all or nothing', async () => {
    await db.transactor.run(async (tx) => {
      await deferWrite(tx, 'insert into uow_items values (?, ?)', ['a1', 1]);
      await deferWrite(tx, 'insert into uow_items values (?, ?)', ["a2'quoted", 2]);
    });
    expect(db.statements).to.have.length(1);
    expect(await count('a')).to.equal(2);

    await expect(
      db.transactor.run(async (tx) => {
        await deferWrite(tx, 'insert into uow_items values (?, ?)', ['a3', 3]);
        await deferWrite(tx, 'insert into uow_items values (?, ?)', ['a1', 4]); // duplicate key
      }),
    ).to.be.rejectedWith(/duplicate key/);
    expect(await count('a')).to.equal(2); // a3 did not survive the failed batch
  });

  it('sends write-only units committing together as one round trip, and a faulty one fails alone', async () => {
    const unit = (id: string, n: number) => db.transactor.run(async (tx) => deferWrite(tx, 'insert into uow_items values (?, ?)', [id, n]));
    await Promise.all([unit('g1', 1), unit('g2', 2), unit('g3', 3)]);
    expect(db.statements).to.have.length(1);
    expect(db.statements[0]).to.match(/^set local lock_timeout = '50ms';\s*insert into uow_items[^;]*'g1'[^;]*;\s*insert into uow_items[^;]*'g2'[^;]*;\s*insert into uow_items[^;]*'g3'/i);
    expect(await count('g')).to.equal(3);

    db.statements.length = 0;
    const outcomes = await Promise.allSettled([unit('h1', 1), unit('g1', 9), unit('h2', 2)]); // g1: duplicate key
    expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).to.match(/duplicate key/);
    expect(db.statements).to.have.length(4); // the group, refused as a whole, then each unit alone
    expect(await count('h')).to.equal(2);
    expect(Number((await db.orm.em.fork().execute(`select n from uow_items where id = 'g1'`))[0].n)).to.equal(1);
  });

  it('does not hold a group behind one unit waiting for a row lock: after its lock timeout the units go alone', async () => {
    await db.orm.em.fork().execute(`insert into uow_items values ('l1', 1)`);
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    try {
      await other.query('begin');
      await other.query(`update uow_items set n = 2 where id = 'l1'`); // holds l1 until it commits
      let waitingDone = false;
      const waiting = db.transactor.run((tx) => deferWrite(tx, 'update uow_items set n = ? where id = ?', [3, 'l1'])).then(() => (waitingDone = true));
      const free = db.transactor.run((tx) => deferWrite(tx, 'insert into uow_items values (?, ?)', ['l2', 1]));
      const freeDone = await Promise.race([free.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 1_000))]);
      expect(freeDone, 'the free unit waited for the other unit’s lock').to.equal(true);
      expect(await count('l2')).to.equal(1);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(waitingDone, 'alone, the waiting unit waits for the lock as long as it takes').to.equal(false);
      await other.query('commit');
      await waiting;
      expect(Number((await db.orm.em.fork().execute(`select n from uow_items where id = 'l1'`))[0].n)).to.equal(3);
    } finally {
      await other.query('rollback').catch(() => undefined);
      await other.end();
    }
  });

  it('keeps a unit that reads out of the group: its transaction stays its own', async () => {
    await Promise.all([
      db.transactor.run(async (tx) => deferWrite(tx, 'insert into uow_items values (?, ?)', ['i1', 1])),
      db.transactor.run(async (tx) => {
        await entityManager(tx).execute('select 1');
        await deferWrite(tx, 'insert into uow_items values (?, ?)', ['i2', 2]);
      }),
    ]);
    expect(db.statements).to.have.length(3);
    expect(db.statements.filter((text) => /^insert into uow_items[^;]*'i1'[^;]*$/i.test(text))).to.have.length(1);
    expect(await count('i')).to.equal(2);
  });

  it('writes strings and JSON documents with quotes, backslashes and any character, and reads them back unchanged', async () => {
    const texts = [...awkwardStrings, 'tail \\'];
    const document = { quote: "it's", slash: 'a\\b', texts };
    await db.orm.em.fork().execute('create table uow_texts (id int primary key, text text not null, doc jsonb not null)');
    await db.transactor.run(async (tx) => {
      for (const [id, text] of texts.entries()) await deferWrite(tx, 'insert into uow_texts values (?, ?, ?)', [id, text, document]);
    });
    const rows: Array<{ text: string; doc: unknown }> = await db.orm.em.fork().execute('select id, text, doc from uow_texts order by id');
    expect(rows.map((row) => row.text)).to.deep.equal(texts);
    for (const row of rows) expect(row.doc).to.deep.equal(document);
  });

  it('lets a read see the unit’s own queued writes, inside one transaction', async () => {
    const seen = await db.transactor.run(async (tx) => {
      await deferWrite(tx, 'insert into uow_items values (?, ?)', ['b1', 1]);
      return entityManager(tx).execute('select n from uow_items where id = ?', ['b1']);
    });
    expect(seen).to.deep.equal([{ n: 1 }]);
    // BEGIN rides with the queued write and the read; COMMIT leaves alone (nothing queued after the read).
    expect(db.statements).to.have.length(2);
    expect(db.statements[0]).to.match(/^begin;\s*insert into uow_items[^;]*;\s*select n from uow_items/i);
    expect(db.statements[1]).to.match(/^commit$/i);
  });

  it('costs two round trips for read, then write: BEGIN with the read, the writes with COMMIT', async () => {
    await db.transactor.run(async (tx) => {
      await entityManager(tx).execute('select 1');
      await deferWrite(tx, 'insert into uow_items values (?, ?)', ['e1', 1]);
      await deferWrite(tx, 'update uow_items set n = ? where id = ?', [2, 'e1']);
    });
    expect(db.statements).to.have.length(2);
    expect(db.statements[0]).to.match(/^begin;\s*select 1$/i);
    expect(db.statements[1]).to.match(/^insert into uow_items[^;]*;\s*update uow_items[^;]*;\s*commit$/i);
    expect(Number((await db.orm.em.fork().execute(`select n from uow_items where id = 'e1'`))[0].n)).to.equal(2);
  });

  it('rolls back a transaction whose COMMIT batch failed, and hands back a clean connection', async () => {
    await expect(
      db.transactor.run(async (tx) => {
        await deferWrite(tx, 'insert into uow_items values (?, ?)', ['f1', 1]);
        await entityManager(tx).execute('select 1');
        await deferWrite(tx, 'insert into uow_items values (?, ?)', ['f2', 2]);
        await deferWrite(tx, 'insert into uow_items values (?, ?)', ['f1', 3]); // duplicate key: COMMIT never runs
      }),
    ).to.be.rejectedWith(/duplicate key/);
    expect(db.statements[db.statements.length - 1]).to.match(/^rollback$/i);
    expect(await count('f')).to.equal(0);
    // Every pooled connection answers outside any transaction (none was returned in an aborted block).
    const states = await Promise.all(
      Array.from({ length: 4 }, () => db.transactor.run(async (tx) => (await entityManager(tx).execute(`select count(*)::int as n from uow_items where id = 'f1'`))[0].n)),
    );
    expect(states).to.deep.equal([0, 0, 0, 0]);
  });

  it('sends nothing when the work throws, and rolls back what was already sent', async () => {
    await expect(
      db.transactor.run(async (tx) => {
        await deferWrite(tx, 'insert into uow_items values (?, ?)', ['c1', 1]);
        await entityManager(tx).execute('select 1');
        await deferWrite(tx, 'insert into uow_items values (?, ?)', ['c2', 2]);
        throw new Error('rule refused');
      }),
    ).to.be.rejectedWith('rule refused');
    expect(await count('c')).to.equal(0);
  });

  it('wakes commit listeners only for units that wrote events, with their ids', async () => {
    let wakes = 0;
    const watched = new MikroOrmTransactor(db.orm);
    const woken: string[] = [];
    watched.onCommit((eventIds) => {
      wakes += 1;
      woken.push(...eventIds);
    });
    await watched.run((tx) => deferWrite(tx, 'insert into uow_items values (?, ?)', ['d1', 1]));
    expect(wakes).to.equal(0);
    const outbox = new SqlEventOutbox(new UlidIdGenerator(), new ManualClock());
    const appended = await watched.run((tx) => outbox.append(tx, [{ type: 'note.created', scope: { organizationId: 'org_uow', environment: 'sandbox' }, object: { object: 'note', id: 'n' } }]));
    expect(wakes).to.equal(1);
    expect(woken).to.deep.equal([appended[0]!.id]);
  });
});

describe('a unit of work on a pool of one connection (embedded mode\'s pool)', () => {
  let orm: Orm;
  before(async () => {
    orm = await openOrm(await createTestDatabase(), 1);
  });
  after(() => orm.close(true));

  it('two statements of one unit sent at once share its connection, inside its transaction', async () => {
    const transactor = new MikroOrmTransactor(orm);
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<'stuck'>((resolve) => (timer = setTimeout(() => resolve('stuck'), 10_000)));
    const unit = transactor.run(async (tx) => {
      const [first, second] = await Promise.all([
        entityManager(tx).execute<Array<{ xid: string }>>('select txid_current()::text as xid'),
        entityManager(tx).execute<Array<{ xid: string }>>('select txid_current()::text as xid'),
      ]);
      return [first[0]!.xid, second[0]!.xid];
    });
    const answered = await Promise.race([unit, stuck]).finally(() => clearTimeout(timer));
    expect(answered, 'the second statement waited for the connection its own unit held').not.to.equal('stuck');
    const [first, second] = answered as string[];
    expect(second, 'both in the unit\'s one transaction').to.equal(first);
  });
});
