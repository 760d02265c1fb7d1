import { expect } from 'chai';
import { MikroOrmTransactor, deferWrite, entityManager } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { useRecordedDatabase } from '../../support/round-trip-recorder';
import { awkwardStrings } from '../../support/awkward-strings';

describe('units of work on prepared statements', () => {
  const db = useRecordedDatabase('create table ps_items (id text primary key, n int not null, doc jsonb)', { preparedStatements: true });

  it('prepares a statement alone the first time, then sends it named, values as parameters, in the unit’s one round trip', async () => {
    await db.transactor.run((tx) => deferWrite(tx, 'insert into ps_items (id, n) values (?, ?)', ['a1', 1]));
    expect(db.statements).to.have.length(2);
    expect(db.statements[0]).to.match(/^prepare u\d+ as insert into ps_items \(id, n\) values \(\$1, \$2\); deallocate u\d+$/);
    expect(db.statements[1]).to.equal('insert into ps_items (id, n) values ($1, $2)');
    expect(db.values).to.deep.equal(['a1', 1]);

    db.statements.length = 0;
    await db.transactor.run(async (tx) => {
      await deferWrite(tx, 'insert into ps_items (id, n) values (?, ?)', ['a2', 2]);
      await deferWrite(tx, 'insert into ps_items (id, n) values (?, ?)', ['a3', 3]);
    });
    // One round trip: BEGIN, both inserts and COMMIT pipelined (several statements of a group are one transaction).
    expect(db.statements).to.deep.equal(['begin;\ninsert into ps_items (id, n) values ($1, $2);\ninsert into ps_items (id, n) values ($1, $2);\ncommit']);
    const rows: Array<{ id: string; n: number }> = await db.orm.em.fork().execute(`select id, n from ps_items where id like 'a%' order by id`);
    expect(rows).to.deep.equal([{ id: 'a1', n: 1 }, { id: 'a2', n: 2 }, { id: 'a3', n: 3 }]);
  });

  it('pipelines the queries of a batch: the pool’s connections write each query without waiting for the one before', async () => {
    const knexClient = db.orm.em.getConnection().getKnex().client;
    const connection = await knexClient.acquireConnection();
    try {
      expect(connection.pipeline).to.equal(true);
    } finally {
      await knexClient.releaseConnection(connection);
    }
  });

  it('prepares on every pooled connection, inside transactions too, once the statement prepared anywhere', async () => {
    await db.transactor.run((tx) => entityManager(tx).execute('select n from ps_items where id = ?', ['none']));
    db.statements.length = 0;
    // Four units at once hold the pool's four connections, each inside its transaction when the read goes out.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const units = Array.from({ length: 4 }, (_, i) =>
      db.transactor.run(async (tx) => {
        await entityManager(tx).execute('select 1');
        await gate;
        return entityManager(tx).execute('select n from ps_items where id = ?', [`none${i}`]);
      }),
    );
    setTimeout(release, 50);
    expect(await Promise.all(units)).to.deep.equal([[], [], [], []]);
    const reads = db.statements.filter((text) => text === 'select n from ps_items where id = $1');
    expect(reads).to.have.length(4);
    expect(db.values.filter((value) => /^none\d$/.test(String(value)))).to.have.members(['none0', 'none1', 'none2', 'none3']);
  });

  it('gives db.statements one name per pool, however many transactors share it', async () => {
    const other = new MikroOrmTransactor(db.orm, { preparedStatements: true });
    for (let round = 0; round < 3; round += 1) {
      const [a, b] = await Promise.all([
        db.transactor.read((tx) => entityManager(tx).execute<Array<{ n: number }>>('select n from ps_items where id = ? or n = ?', ['a1', -1])),
        other.read((tx) => entityManager(tx).execute<Array<{ id: string }>>('select id from ps_items where n = ? and id = ?', [2, 'a2'])),
      ]);
      expect(a).to.deep.equal([{ n: 1 }]);
      expect(b).to.deep.equal([{ id: 'a2' }]);
    }
    // Each text is tried once in the pool, whichever transactor meets it first.
    expect(db.statements.filter((text) => text.startsWith('prepare '))).to.have.length(2);
  });

  it('passes strings with quotes, backslashes and any character, and JSON documents, unchanged, never in the SQL text', async () => {
    const texts = [...awkwardStrings, 'tail \\'];
    const document = { quote: "it's", slash: 'a\\b', texts };
    await db.transactor.run(async (tx) => {
      for (const [i, text] of texts.entries()) await deferWrite(tx, 'insert into ps_items (id, n, doc) values (?, ?, ?)', [`t${i}:${text}`, i, document]);
    });
    const rows: Array<{ id: string; doc: unknown }> = await db.orm.em.fork().execute(`select id, doc from ps_items where id like 't%' order by n`);
    expect(rows.map((row) => row.id)).to.deep.equal(texts.map((text, i) => `t${i}:${text}`));
    for (const row of rows) expect(row.doc).to.deep.equal(document);
    const sent = db.statements.join('\n');
    expect(sent).to.not.include('t1:');
    expect(sent).to.not.include("o''clock");
    expect(db.values).to.include(`t2:o'clock`);
  });

  it('reads back what it wrote as the same values (quotes, backslashes, unicode) through a real query', async () => {
    for (const text of awkwardStrings) {
      const [row] = await db.transactor.read((tx) => entityManager(tx).execute<Array<{ echoed: string; doc: unknown }>>('select ?::text as echoed, ?::jsonb as doc', [text, { text }]));
      expect(row).to.deep.equal({ echoed: text, doc: { text } }, JSON.stringify(text.slice(0, 40)));
    }
    expect(db.statements.join('\n')).to.not.include("o''clock");
  });

  it("keeps a statement PostgreSQL cannot type as text written with pg's escaping, with the meaning its literals give it, and tries it only once", async () => {
    const sum = () => db.transactor.read((tx) => entityManager(tx).execute<Array<{ n: number }>>('select ? + ? as n', [1, 2]));
    expect(await sum()).to.deep.equal([{ n: 3 }]);
    expect(db.statements).to.have.length(2); // the attempt to prepare it, then the statement as text
    expect(db.statements[0]).to.match(/^prepare u\d+ as select \$1 \+ \$2 as n; deallocate u\d+$/);
    expect(db.statements[1]).to.equal('select 1 + 2 as n');
    db.statements.length = 0;
    expect(await sum()).to.deep.equal([{ n: 3 }]);
    expect(db.statements).to.deep.equal(['select 1 + 2 as n']);
  });

  it('tries a new statement inside a transaction under a savepoint, so a refusal leaves the transaction usable', async () => {
    const result = await db.transactor.run(async (tx) => {
      await entityManager(tx).execute('select n from ps_items where id = ?', ['a1']);
      await deferWrite(tx, 'insert into ps_items (id, n) values (?, ?)', ['s1', 41]);
      return entityManager(tx).execute<Array<{ n: number }>>('select ? * ? as n', [6, 7]);
    });
    expect(result).to.deep.equal([{ n: 42 }]);
    expect(db.statements.some((text) => /^savepoint probe; prepare u\d+ as select \$1 \* \$2 as n; deallocate u\d+; release savepoint probe$/.test(text))).to.equal(true);
    expect(db.statements).to.include('rollback to savepoint probe; release savepoint probe');
    const [row] = await db.orm.em.fork().execute(`select n from ps_items where id = 's1'`);
    expect(row).to.deep.equal({ n: 41 });
  });

  it('keeps a group commit all or nothing though its statements are pipelined: a refused group commits nothing, then each unit goes alone', async () => {
    await db.transactor.run((tx) => deferWrite(tx, 'insert into ps_items (id, n) values (?, ?)', ['g0', 0]));
    db.statements.length = 0;
    const outcomes = await Promise.allSettled(
      [['g1', 1], ['g0', 2], ['g2', 3]].map((values) => db.transactor.run((tx) => deferWrite(tx, 'insert into ps_items (id, n) values (?, ?)', values))),
    );
    expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect(db.statements[0]).to.equal(`begin;\nset local lock_timeout = '50ms';\n${Array(3).fill('insert into ps_items (id, n) values ($1, $2)').join(';\n')};\ncommit`);
    const rows: Array<{ id: string; n: number }> = await db.orm.em.fork().execute(`select id, n from ps_items where id like 'g%' order by id`);
    expect(rows).to.deep.equal([{ id: 'g0', n: 0 }, { id: 'g1', n: 1 }, { id: 'g2', n: 3 }]);
  });

  it('leaves every connection usable after a batch that prepared and then failed', async () => {
    await expect(
      db.transactor.run(async (tx) => {
        await deferWrite(tx, 'insert into ps_items (id, n) values (?, ?)', ['f1', 1]);
        await deferWrite(tx, 'update ps_items set n = ? where id = ? and n < 0', [5, 'f1']);
        await deferWrite(tx, 'insert into ps_items (id, n) values (?, ?)', ['f1', 2]); // duplicate key
      }),
    ).to.be.rejectedWith(/duplicate key/);
    const counts = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        db.transactor.run(async (tx) => {
          await deferWrite(tx, 'update ps_items set n = ? where id = ? and n < 0', [i, 'f1']);
          return (await entityManager(tx).execute(`select count(*)::int as n from ps_items where id = ?`, ['f1']))[0].n;
        }),
      ),
    );
    expect(counts).to.deep.equal([0, 0, 0, 0]);
  });

  it('prepares afresh, and sends the batch again, when a migration changed the columns a prepared select * returns', async () => {
    await db.orm.em.fork().execute('create table ps_wide (id text primary key, n int not null)');
    await db.orm.em.fork().execute(`insert into ps_wide values ('w1', 1)`);
    const read = () => db.transactor.read((tx) => entityManager(tx).execute<Array<Record<string, unknown>>>('select * from ps_wide where id = ?', ['w1']));
    const readInUnit = () =>
      db.transactor.run(async (tx) => {
        await deferWrite(tx, 'update ps_wide set n = n + ? where id = ?', [0, 'w1']);
        return entityManager(tx).execute<Array<Record<string, unknown>>>('select * from ps_wide where id = ?', ['w1']);
      });
    // Prepared on every pooled connection (four at once).
    await Promise.all(Array.from({ length: 4 }, read));
    await db.orm.em.fork().execute('alter table ps_wide add column extra text');
    const after = await Promise.all([read(), read(), readInUnit(), readInUnit()]);
    for (const rows of after) expect(rows).to.deep.equal([{ id: 'w1', n: 1, extra: null }]);
  });

  it('prepares again, and sends the batch again, when the server dropped what a connection had prepared', async () => {
    const insert = (id: string) => db.transactor.run((tx) => deferWrite(tx, 'insert into ps_items (id, n) values (?, ?)', [id, 9]));
    await Promise.all(['d1', 'd2', 'd3', 'd4'].map(insert));
    // Every pooled connection drops its db.statements, as a DISCARD from elsewhere would (four units held open at once).
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const dropping = Array.from({ length: 4 }, () =>
      db.transactor.run(async (tx) => {
        await entityManager(tx).execute('deallocate all');
        await gate;
      }),
    );
    setTimeout(release, 50);
    await Promise.all(dropping);
    await Promise.all(['d5', 'd6', 'd7', 'd8'].map(insert));
    const rows: Array<{ id: string }> = await db.orm.em.fork().execute(`select id from ps_items where id like 'd%' order by id`);
    expect(rows.map((row) => row.id)).to.deep.equal(['d1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8']);
  });
});
