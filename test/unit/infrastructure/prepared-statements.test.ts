import { expect } from 'chai';
import { Configuration } from '@mikro-orm/core';
import { PostgreSqlDriver, PostgreSqlPlatform } from '@mikro-orm/postgresql';
import { PreparedStatements } from '../../../infrastructure/persistence/prepared-statements';

function platform(): PostgreSqlPlatform {
  const configured = new PostgreSqlPlatform();
  configured.setConfig(new Configuration({ driver: PostgreSqlDriver, dbName: 'unit', entities: [], forceUtcTimezone: true, discovery: { warnWhenNoEntities: false } }, false));
  return configured;
}

const statement = { sql: 'select n from t where id = ?', params: ['a'] };

describe('prepared statements (which statements go prepared, without a database)', () => {
  it('keeps a statement PostgreSQL refused as written as literal text for good', async () => {
    const registry = PreparedStatements.forPool({}, platform());
    const connection = {};
    const probes: string[] = [];
    const refuse = async (prepare: string) => (probes.push(prepare), Object.assign(new Error('could not determine data type'), { code: '42P18' }));
    expect((await registry.render(connection, [statement], refuse)).text).to.deep.equal(["select n from t where id = 'a'"]);
    expect((await registry.render(connection, [statement], refuse)).text).to.deep.equal(["select n from t where id = 'a'"]);
    expect(probes).to.have.length(1);
  });

  it('tries again after a refusal that says nothing about the statement (a lost connection, a cancel)', async () => {
    const registry = PreparedStatements.forPool({}, platform());
    const connection = {};
    const transient = async () => Object.assign(new Error('canceling statement due to user request'), { code: '57014' });
    expect((await registry.render(connection, [statement], transient)).text).to.deep.equal(["select n from t where id = 'a'"]);
    const accept = async () => null;
    expect((await registry.render(connection, [statement], accept)).text).to.deep.equal(["execute u2('a')"]);
  });

  it('prepares at the head of the batch on a connection that has not, once another connection prepared it', async () => {
    const registry = PreparedStatements.forPool({}, platform());
    await registry.render({}, [statement], async () => null);
    const other = {};
    const batch = await registry.render(other, [statement, { sql: 'begin', params: [] }, statement], null);
    expect(batch.text).to.deep.equal(['prepare u1 as select n from t where id = $1', "execute u1('a')", 'begin', "execute u1('a')"]);
    registry.sent(other, batch, null);
    expect((await registry.render(other, [statement], null)).text).to.deep.equal(["execute u1('a')"]);
  });

  it('forgets what a connection held when the server says it holds no such statement', async () => {
    const registry = PreparedStatements.forPool({}, platform());
    const connection = {};
    const first = await registry.render(connection, [statement], async () => null);
    registry.sent(connection, first, Object.assign(new Error('prepared statement "u1" does not exist'), { code: '26000' }));
    expect((await registry.render(connection, [statement], null)).text).to.deep.equal(['prepare u1 as select n from t where id = $1', "execute u1('a')"]);
  });

  it('drops every statement of a connection whose statements went stale, in a round trip before its next batch outside a transaction', async () => {
    const registry = PreparedStatements.forPool({}, platform());
    const connection = {};
    const first = await registry.render(connection, [statement], async () => null);
    registry.sent(connection, first, Object.assign(new Error('cached plan must not change result type'), { code: '0A000' }));
    // Inside a transaction (no probe) nothing is dropped: the statement is prepared again under its name.
    const inside = await registry.render(connection, [statement], null);
    expect(inside.text).to.deep.equal(['prepare u1 as select n from t where id = $1', "execute u1('a')"]);
    const alone: string[] = [];
    const outside = await registry.render(connection, [statement], async (sql) => (alone.push(sql), null));
    expect(alone).to.deep.equal(['deallocate all']);
    expect(outside.text).to.deep.equal(['prepare u1 as select n from t where id = $1', "execute u1('a')"]);
    registry.sent(connection, outside, null);
    expect((await registry.render(connection, [statement], async () => null)).text).to.deep.equal(["execute u1('a')"]);
  });

  it('keeps a statement probed in the batch that follows the drop', async () => {
    const registry = PreparedStatements.forPool({}, platform());
    const connection = {};
    registry.sent(connection, await registry.render(connection, [statement], async () => null), Object.assign(new Error('gone'), { code: '26000' }));
    const sent: string[] = [];
    const other = { sql: 'select m from t where id = ?', params: ['b'] };
    const batch = await registry.render(connection, [other], async (sql) => (sent.push(sql), null));
    expect(sent).to.deep.equal(['deallocate all', 'prepare u2 as select m from t where id = $1']);
    expect(batch.text).to.deep.equal(["execute u2('b')"]);
  });

  it('uses one registry per pool', () => {
    const pool = {};
    expect(PreparedStatements.forPool(pool, platform())).to.equal(PreparedStatements.forPool(pool, platform()));
    expect(PreparedStatements.forPool({}, platform())).to.not.equal(PreparedStatements.forPool(pool, platform()));
  });
});
