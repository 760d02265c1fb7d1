import { expect } from 'chai';
import { Configuration } from '@mikro-orm/core';
import { PostgreSqlDriver, PostgreSqlPlatform } from '@mikro-orm/postgresql';
import { PreparedStatements, type Probe } from '../../../../infrastructure/persistence/prepared-statements';

function platform(): PostgreSqlPlatform {
  const configured = new PostgreSqlPlatform();
  configured.setConfig(new Configuration({ driver: PostgreSqlDriver, dbName: 'unit', entities: [], forceUtcTimezone: true, discovery: { warnWhenNoEntities: false } }, false));
  return configured;
}

const statement = { sql: 'select n from t where id = ?', params: ["a'b"] };
const accept: Probe = async () => null;
const stale = (code: string, message: string) => Object.assign(new Error(message), { code });

/** A pooled connection as far as the registry sees it: the driver's record of the names it prepared. */
function connection(): { connection: { parsedStatements: Record<string, string>; submittedNamedStatements: Record<string, string> } } {
  return { connection: { parsedStatements: {}, submittedNamedStatements: {} } };
}

describe('prepared statements (which statements go prepared, without a database)', () => {
  it('probes a new statement once, then sends it named with its values as parameters', async () => {
    const registry = PreparedStatements.forPool({}, platform());
    const probes: Array<[string, boolean]> = [];
    const probe: Probe = async (sql, inTransaction) => (probes.push([sql, inTransaction]), null);
    const first = await registry.render(connection(), [statement], true, probe);
    expect(first).to.deep.equal([{ text: 'select n from t where id = $1', values: ["a'b"], name: 'u1' }]);
    expect(await registry.render(connection(), [statement, { sql: 'begin', params: [] }], false, probe)).to.deep.equal([
      { text: 'select n from t where id = $1', values: ["a'b"], name: 'u1' },
      { text: 'begin' },
    ]);
    expect(probes).to.deep.equal([['prepare u1 as select n from t where id = $1; deallocate u1', false]]);
  });

  it('probes inside a transaction when the statement is first seen there (the transactor wraps it in a savepoint)', async () => {
    const registry = PreparedStatements.forPool({}, platform());
    const probes: Array<[string, boolean]> = [];
    await registry.render(connection(), [statement], false, async (sql, inTransaction) => (probes.push([sql, inTransaction]), null));
    expect(probes).to.deep.equal([['prepare u1 as select n from t where id = $1; deallocate u1', true]]);
  });

  it("keeps a statement PostgreSQL refused as written as text for good, written by the platform with pg's escaping", async () => {
    const registry = PreparedStatements.forPool({}, platform());
    let probes = 0;
    const refuse: Probe = async () => ((probes += 1), stale('42P18', 'could not determine data type of parameter $1'));
    expect(await registry.render(connection(), [statement], true, refuse)).to.deep.equal([{ text: "select n from t where id = 'a''b'" }]);
    expect(await registry.render(connection(), [statement], true, refuse)).to.deep.equal([{ text: "select n from t where id = 'a''b'" }]);
    expect(probes).to.equal(1);
  });

  it('tries again after a refusal that says nothing about the statement (a lost connection, a cancel)', async () => {
    const registry = PreparedStatements.forPool({}, platform());
    const transient: Probe = async () => stale('57014', 'canceling statement due to user request');
    expect(await registry.render(connection(), [statement], true, transient)).to.deep.equal([{ text: "select n from t where id = 'a''b'" }]);
    expect(await registry.render(connection(), [statement], true, accept)).to.deep.equal([{ text: 'select n from t where id = $1', values: ["a'b"], name: 'u2' }]);
  });

  it('sends statements without values as text, unprobed', async () => {
    const registry = PreparedStatements.forPool({}, platform());
    const probe: Probe = async () => expect.fail('probed');
    expect(await registry.render(connection(), [{ sql: 'commit', params: [] }], true, probe)).to.deep.equal([{ text: 'commit' }]);
  });

  for (const [code, message] of [['26000', 'prepared statement "u1" does not exist'], ['0A000', 'cached plan must not change result type']]) {
    it(`after ${code} (${message}): unnamed inside a transaction, then DEALLOCATE ALL before the next idle batch and the driver's names forgotten`, async () => {
      const registry = PreparedStatements.forPool({}, platform());
      const pooled = connection();
      await registry.render(pooled, [statement], true, accept);
      pooled.connection.parsedStatements.u1 = 'select n from t where id = $1';
      registry.sent(pooled, stale(code, message));
      expect(await registry.render(pooled, [statement], false, accept)).to.deep.equal([{ text: 'select n from t where id = $1', values: ["a'b"] }]);
      const alone: string[] = [];
      const outside = await registry.render(pooled, [statement], true, async (sql) => (alone.push(sql), null));
      expect(alone).to.deep.equal(['deallocate all']);
      expect(pooled.connection.parsedStatements).to.deep.equal({});
      expect(outside).to.deep.equal([{ text: 'select n from t where id = $1', values: ["a'b"], name: 'u1' }]);
    });
  }

  it('ignores failures that are not about prepared statements', async () => {
    const registry = PreparedStatements.forPool({}, platform());
    const pooled = connection();
    await registry.render(pooled, [statement], true, accept);
    registry.sent(pooled, stale('23505', 'duplicate key value violates unique constraint'));
    const probe: Probe = async () => expect.fail('nothing to drop');
    expect(await registry.render(pooled, [statement], true, probe)).to.deep.equal([{ text: 'select n from t where id = $1', values: ["a'b"], name: 'u1' }]);
  });

  it('uses one registry per pool', () => {
    const pool = {};
    expect(PreparedStatements.forPool(pool, platform())).to.equal(PreparedStatements.forPool(pool, platform()));
    expect(PreparedStatements.forPool({}, platform())).to.not.equal(PreparedStatements.forPool(pool, platform()));
  });
});
