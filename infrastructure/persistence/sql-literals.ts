import { Utils, JsonProperty, type Platform } from '@mikro-orm/core';

/**
 * A string as a PostgreSQL literal, exactly as `pg`'s escapeLiteral writes it (quotes doubled; backslashes
 * doubled and the literal marked E'' when there is one), but built by two native replaces instead of one string
 * concatenation per character. That loop made every payment's JSON documents (a few kB each, three per
 * payment) into thousands of rope nodes: 40 % of everything the service allocated under load (measured with
 * V8's sampling heap profiler), all garbage by the time the statement reached the socket.
 */
export function escapeLiteral(value: string): string {
  const quoted = value.replaceAll("'", "''");
  if (!quoted.includes('\\')) return `'${quoted}'`;
  return ` E'${quoted.replaceAll('\\', '\\\\')}'`;
}

/**
 * MikroORM's `platform.formatQuery` (same placeholders: `?` a value, `??` an identifier, `\?` a literal question
 * mark), with strings and JSON documents quoted by `escapeLiteral` above. Every other value (numbers, dates,
 * booleans, null, arrays, buffers, raw fragments) is quoted by the platform itself, so the SQL produced is the
 * platform's, character for character (test/unit/infrastructure/sql-literals.test.ts holds the two side by side).
 */
export function formatSql(platform: Platform, sql: string, params: readonly unknown[]): string {
  if (params.length === 0) return sql;
  return substitute(platform, sql, params, (value) => quoteLiteral(platform, value));
}

/** A statement as a server-side prepared statement runs it: the text with `$n` placeholders and each value as a literal. */
export interface ParameterizedSql {
  readonly template: string;
  readonly args: readonly string[];
}

/**
 * The statement `formatSql` would write, split into a template (`$1`, `$2`... where the values go; identifiers
 * written in) and the values as literals, for `PREPARE name AS template` and `EXECUTE name(args)`. Null when the
 * statement cannot be one: no values, a value that is not a single literal (an array expands to a list, a raw
 * fragment is SQL), or a `$` in the text (a dollar quote or a placeholder already).
 */
export function parameterizeSql(platform: Platform, sql: string, params: readonly unknown[]): ParameterizedSql | null {
  if (params.length === 0 || sql.includes('$')) return null;
  if (params.some((value) => Array.isArray(value) || Utils.isRawSql(value))) return null;
  if (!sql.includes('??')) {
    // Without identifiers every placeholder is a value, so the template depends on the text alone: built once.
    let known = TEMPLATES.get(sql);
    if (known === undefined) {
      let count = 0;
      known = { template: substitute(platform, sql, params, () => `$${(count += 1)}`), count };
      if (TEMPLATES.size < MAX_TEMPLATES) TEMPLATES.set(sql, known);
    }
    const args: string[] = [];
    for (let i = 0; i < known.count; i += 1) args.push(quoteLiteral(platform, params[i]));
    return { template: known.template, args };
  }
  const args: string[] = [];
  const template = substitute(platform, sql, params, (value) => {
    args.push(quoteLiteral(platform, value));
    return `$${args.length}`;
  });
  return { template, args };
}

/** Templates by statement text (the hot statements are a few dozen texts, each a kilobyte or so). */
const TEMPLATES = new Map<string, { template: string; count: number }>();
const MAX_TEMPLATES = 2_000;

function quoteLiteral(platform: Platform, value: unknown): string {
  if (typeof value === 'string') return escapeLiteral(value);
  if (isJsonDocument(value)) return escapeLiteral(JSON.stringify(value));
  return platform.quoteValue(value) as string;
}

/** Walks the placeholders: identifiers quoted by the platform, each value written by `writeValue`. */
function substitute(platform: Platform, sql: string, params: readonly unknown[], writeValue: (value: unknown) => string): string {
  let next = 0;
  let position = 0;
  let formatted = '';
  if (sql[0] === '?') {
    if (sql[1] === '?') {
      formatted += platform.quoteIdentifier(params[next++] as string);
      position = 2;
    } else {
      formatted += writeValue(params[next++]);
      position = 1;
    }
  }
  while (position < sql.length) {
    const at = sql.indexOf('?', position + 1);
    if (at === -1) {
      formatted += sql.substring(position);
      break;
    }
    if (sql[at - 1] === '\\') {
      formatted += sql.substring(position, at - 1) + '?';
      position = at + 1;
    } else if (sql[at + 1] === '?') {
      formatted += sql.substring(position, at) + platform.quoteIdentifier(params[next++] as string);
      position = at + 2;
    } else {
      formatted += sql.substring(position, at) + writeValue(params[next++]);
      position = at + 1;
    }
  }
  return formatted;
}

/** What the platform would serialize as JSON: a plain object (not an array, date, buffer or raw fragment). */
function isJsonDocument(value: unknown): value is object {
  if (value === null || typeof value !== 'object' || Utils.isRawSql(value)) return false;
  return Utils.isPlainObject(value) || Boolean((value as Record<symbol, unknown>)[JsonProperty]);
}
