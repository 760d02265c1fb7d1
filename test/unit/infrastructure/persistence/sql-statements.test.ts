import { expect } from 'chai';
import { Configuration, raw } from '@mikro-orm/core';
import { PostgreSqlDriver, PostgreSqlPlatform } from '@mikro-orm/postgresql';
import { literalSql, parameterizeSql } from '../../../../infrastructure/persistence/sql-statements';
import { awkwardStrings } from '../../../support/awkward-strings';

/** The platform as openOrm configures it (UTC dates), without a database. */
function platform(): PostgreSqlPlatform {
  const configured = new PostgreSqlPlatform();
  configured.setConfig(new Configuration({ driver: PostgreSqlDriver, dbName: 'unit', entities: [], forceUtcTimezone: true, discovery: { warnWhenNoEntities: false } }, false));
  return configured;
}

describe('SQL statements (values as bind parameters, MikroORM placeholders kept)', () => {
  const reference = platform();

  it('puts $1, $2... where the values go, identifiers and literal question marks in the text, and no value in the text', () => {
    const at = new Date(Date.UTC(2026, 10, 25, 12, 0, 0, 7));
    for (const text of awkwardStrings) {
      const document = { a: [1, text], b: { c: null } };
      const parameterized = parameterizeSql(reference, 'select ?, ??, ? from t where j \\? k and a = ? and b = ? and c = ?::jsonb and d = ? and e = ?', [text, 'p.doc', 1990, null, at, document, true, undefined]);
      expect(parameterized).to.deep.equal({
        text: 'select $1, "p"."doc", $2 from t where j ? k and a = $3 and b = $4 and c = $5::jsonb and d = $6 and e = $7',
        values: [text, 1990, null, '2026-11-25T12:00:00.007Z', JSON.stringify(document), true, null],
      });
    }
  });

  it('sends a list as one parameter per element, as the platform writes it, and a JSON array as one document', () => {
    expect(parameterizeSql(reference, 'select * from t where id in (?) and n = ?', [['a', "b'c", 'd'], 5])).to.deep.equal({
      text: 'select * from t where id in ($1, $2, $3) and n = $4',
      values: ['a', "b'c", 'd', 5],
    });
    const tagged = reference.cloneEmbeddable([1, 'x']);
    expect(parameterizeSql(reference, 'update t set doc = ?', [tagged])).to.deep.equal({ text: 'update t set doc = $1', values: ['[1,"x"]'] });
  });

  it('builds the same text for each call of a statement, whatever its values', () => {
    const sql = 'update t set a = ?, b = ? where id = ?';
    expect(parameterizeSql(reference, sql, [1, "x'y", 'id1'])).to.deep.equal({ text: 'update t set a = $1, b = $2 where id = $3', values: [1, "x'y", 'id1'] });
    expect(parameterizeSql(reference, sql, [null, 'z', 'id2'])).to.deep.equal({ text: 'update t set a = $1, b = $2 where id = $3', values: [null, 'z', 'id2'] });
  });

  it('refuses a raw fragment among the values, or a $ in the text, which only SQL text can carry', () => {
    expect(parameterizeSql(reference, 'update t set at = ?', [raw('now()')])).to.equal(null);
    expect(parameterizeSql(reference, 'select $$a$$ || ?', ['b'])).to.equal(null);
    expect(parameterizeSql(reference, 'select 1', [])).to.deep.equal({ text: 'select 1', values: [] });
  });

  it("writes literal SQL exactly as MikroORM's platform does (strings through pg's escapeLiteral)", () => {
    const params = ["it's", 'back\\slash', 3, null, { a: "b'c" }];
    expect(literalSql(reference, 'select ?, ?, ?, ?, ?', params)).to.equal(reference.formatQuery('select ?, ?, ?, ?, ?', params));
    expect(literalSql(reference, 'select ?, ?', ["it's", 'back\\slash'])).to.equal(`select 'it''s',  E'back\\\\slash'`);
    expect(literalSql(reference, 'select 1', [])).to.equal('select 1');
  });
});
