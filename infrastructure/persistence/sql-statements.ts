import { Utils, JsonProperty, type Platform } from '@mikro-orm/core';

/**
 * How the units of work turn a repository's statement (`?` a value, `??` an identifier, `\?` a literal question
 * mark: MikroORM's placeholders) into what the `pg` driver sends. There is no escaper of our own here: values travel
 * as bind parameters of the extended protocol, never inside the SQL text; where a statement must go as text (the
 * embedded database, a statement PostgreSQL cannot type), MikroORM's platform writes it, which quotes strings with
 * `pg`'s own escapeLiteral.
 */

/** A statement for the driver's extended protocol: the text with `$1`, `$2`... and the values bound to them. */
export interface ParameterizedSql {
  readonly text: string;
  readonly values: readonly unknown[];
}

/**
 * The statement with its values as parameters, or null when it cannot be one: a raw fragment or an object the
 * platform writes as SQL among the values, or a `$` in the text (a dollar quote or a placeholder already). A list
 * goes as one parameter per element, as the platform writes it (`in (?)` becomes `in ($1, $2)`); a JSON document
 * as its JSON text; a date as its UTC ISO form (the platform's, the service forcing UTC); everything else as the
 * driver converts it.
 */
export function parameterizeSql(platform: Platform, sql: string, params: readonly unknown[]): ParameterizedSql | null {
  if (sql.includes('$')) return null;
  if (params.length === 0) return { text: sql, values: [] };
  if (!sql.includes('??') && !params.some(Array.isArray)) {
    // Without identifiers or lists every placeholder is one value, so the text depends on the statement alone: built once.
    let known = TEMPLATES.get(sql);
    if (known === undefined) {
      let count = 0;
      known = substitute(platform, sql, params, () => `$${(count += 1)}`);
      if (TEMPLATES.size < MAX_TEMPLATES) TEMPLATES.set(sql, known);
    }
    const values: unknown[] = new Array(params.length);
    for (let i = 0; i < params.length; i += 1) {
      const value = parameterValue(params[i]);
      if (value === NOT_A_VALUE) return null;
      values[i] = value;
    }
    return { text: known, values };
  }
  const values: unknown[] = [];
  let refused = false;
  const bind = (value: unknown): string => {
    const converted = parameterValue(value);
    if (converted === NOT_A_VALUE) refused = true;
    values.push(converted);
    return `$${values.length}`;
  };
  const text = substitute(platform, sql, params, function place(value: unknown): string {
    // The platform writes a list as its elements, comma separated (nested lists flattened): `in (?)`.
    if (Array.isArray(value) && !isJsonDocument(value)) return value.map(place).join(', ');
    return bind(value);
  });
  return refused ? null : { text, values };
}

/**
 * The statement as SQL text with its values written in, by MikroORM's platform (strings and JSON through `pg`'s
 * escapeLiteral): for the embedded database, whose socket server interleaves the extended-protocol messages of
 * its connections, and for a statement that cannot take parameters.
 */
export function literalSql(platform: Platform, sql: string, params: readonly unknown[]): string {
  return params.length === 0 ? sql : platform.formatQuery(sql, [...params]);
}

/** Parameter texts by statement text (the hot statements are a few dozen texts, each a kilobyte or so). */
const TEMPLATES = new Map<string, string>();
const MAX_TEMPLATES = 2_000;

const NOT_A_VALUE = Symbol('not a value');

function parameterValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object') return value;
  if (Utils.isRawSql(value)) return NOT_A_VALUE;
  if (isJsonDocument(value)) return JSON.stringify(value);
  if (value instanceof Date) return value.toISOString();
  if (ArrayBuffer.isView(value)) return value;
  // Anything else (a knex raw, an object of a class) the platform would write as SQL of its own.
  return NOT_A_VALUE;
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

/** What the platform would serialize as JSON: a plain object, or a value MikroORM tagged as JSON (a JSON array). */
function isJsonDocument(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Utils.isRawSql(value)) return false;
  return Utils.isPlainObject(value) || Boolean((value as Record<symbol, unknown>)[JsonProperty]);
}
