import { expect } from 'chai';
import { Configuration, raw } from '@mikro-orm/core';
import { PostgreSqlDriver, PostgreSqlPlatform } from '@mikro-orm/postgresql';
import pg from 'pg';
import { escapeLiteral, formatSql, parameterizeSql } from '../../../infrastructure/persistence/sql-literals';
import { awkwardStrings } from '../../support/awkward-strings';

/** The platform as openOrm configures it (UTC dates), without a database. */
function platform(): PostgreSqlPlatform {
  const configured = new PostgreSqlPlatform();
  configured.setConfig(new Configuration({ driver: PostgreSqlDriver, dbName: 'unit', entities: [], forceUtcTimezone: true, discovery: { warnWhenNoEntities: false } }, false));
  return configured;
}

describe('SQL literals (formatting statements as MikroORM does, without its per-character concatenation)', () => {
  it('escapes every string exactly as pg.escapeLiteral does', () => {
    for (const value of awkwardStrings) expect(escapeLiteral(value), JSON.stringify(value.slice(0, 40))).to.equal(pg.Client.prototype.escapeLiteral(value));
  });

  it("formats every placeholder and value kind character for character as the platform's formatQuery", () => {
    const sql = 'select ?, ??, ?, ?, ?, ?, ?, ?, ?, ? from ?? where a = ? and b \\? c and d = ?';
    const cases: unknown[][] = [
      ...awkwardStrings.map((text) => [text, 'p.doc', 1990, -1.5, true, false, null, new Date(Date.UTC(2026, 10, 25, 12, 0, 0, 7)), { a: [1, text], b: { c: null } }, [1, 'two', null], 'payments', text, 2 ** 40]),
      ['?', 'a.b', 0, 0, false, true, null, new Date(0), {}, [], 't', Buffer.from('bytes'), raw('now()')],
    ];
    const reference = platform();
    for (const params of cases) {
      expect(formatSql(reference, sql, params)).to.equal(reference.formatQuery(sql, [...params]));
    }
  });

  it('handles a statement that starts with a placeholder, and one without any', () => {
    const reference = platform();
    expect(formatSql(reference, '? as v', ["it's"])).to.equal(reference.formatQuery('? as v', ["it's"]));
    expect(formatSql(reference, '?? as v', ['t.c'])).to.equal(reference.formatQuery('?? as v', ['t.c']));
    expect(formatSql(reference, 'select 1', [])).to.equal('select 1');
  });

  describe('as a prepared statement (template with $n placeholders, values as literals)', () => {
    it('puts $1, $2... where the values go, identifiers and literal question marks in the text, and each value as formatSql writes it', () => {
      const reference = platform();
      const params = ["it's", 'p.doc', 1990, null, new Date(Date.UTC(2026, 10, 25)), { a: "b'c" }, true];
      const parameterized = parameterizeSql(reference, 'select ?, ??, ? from t where j \\? k and a = ? and b = ? and c = ?::jsonb and d = ?', params);
      expect(parameterized).to.deep.equal({
        template: 'select $1, "p"."doc", $2 from t where j ? k and a = $3 and b = $4 and c = $5::jsonb and d = $6',
        args: ["'it''s'", '1990', 'NULL', formatSql(reference, '?', [params[4]]), `'{"a":"b''c"}'`, 'true'],
      });
    });

    it('gives a statement text the same template each time, with the values of each call', () => {
      const reference = platform();
      const sql = 'update t set a = ?, b = ? where id = ?';
      expect(parameterizeSql(reference, sql, [1, "x'y", 'id1'])).to.deep.equal({ template: 'update t set a = $1, b = $2 where id = $3', args: ['1', "'x''y'", "'id1'"] });
      expect(parameterizeSql(reference, sql, [null, 'z', 'id2'])).to.deep.equal({ template: 'update t set a = $1, b = $2 where id = $3', args: ['NULL', "'z'", "'id2'"] });
    });

    it('is not offered for a statement without values, with a list or a raw fragment among them, or with a $ in its text', () => {
      const reference = platform();
      expect(parameterizeSql(reference, 'select 1', [])).to.equal(null);
      expect(parameterizeSql(reference, 'select * from t where id in (?)', [['a', 'b']])).to.equal(null);
      expect(parameterizeSql(reference, 'update t set at = ?', [raw('now()')])).to.equal(null);
      expect(parameterizeSql(reference, "select $$a$$ || ?", ['b'])).to.equal(null);
    });
  });
});

