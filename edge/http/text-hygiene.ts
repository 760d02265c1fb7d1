/**
 * Text the database cannot store is refused at the edge, whatever the route. PostgreSQL's text and jsonb refuse a NUL
 * character (U+0000) and an unpaired UTF-16 surrogate (U+D800-U+DFFF alone, which is not UTF-8 at all): the statement
 * fails (22021, 22P02, 22P05, 08P01) and the request became a 500, or worse, left its Idempotency-Key in flight. JSON.parse
 * turns the escapes "\u0000" and "\ud800" into such strings, and a percent-decoded path or query turns %00 into a NUL
 * (invalid UTF-8 such as %ED%A0%80 decodes to U+FFFD in a query and stays undecoded in a path, both storable).
 * Header values cannot carry either: Node's parser refuses a NUL in a header and reads the rest as Latin-1.
 */
import { HttpError } from './errors';

/** A NUL, or a surrogate that is not half of a pair (in a `u` expression a pair is one code point, never Cs). */
const UNSTORABLE = /[\u0000\p{Cs}]/u;

export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

export interface UnstorableText {
  /** Where, in the error body's `param` notation: `body.metadata.note`, `body.items[2]`, `query.email`. */
  readonly param: string;
  /** True when a field name (a map key) is at fault, `param` then names the object holding it. */
  readonly inFieldName: boolean;
}

/** The first string or field name in `value` the database cannot store, or null. Depth is bounded by the parser. */
export function findUnstorableText(value: unknown, location: string): UnstorableText | null {
  if (typeof value === 'string') return isStorableText(value) ? null : { param: location, inFieldName: false };
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = findUnstorableText(value[index], `${location}[${index}]`);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [name, child] of Object.entries(value)) {
      if (!isStorableText(name)) return { param: location, inFieldName: true };
      const found = findUnstorableText(child, `${location}.${name}`);
      if (found) return found;
    }
  }
  return null;
}

const WHY = 'a NUL character (U+0000) or an unpaired UTF-16 surrogate, which cannot be stored';

/** 422 validation_failed naming where, for a body or a query (contract.md 3). The offending text is never echoed. */
export function refuseUnstorableText(value: unknown, location: 'body' | 'query'): void {
  const found = findUnstorableText(value, location);
  if (!found) return;
  const message = found.inFieldName ? `has a field name containing ${WHY}` : `contains ${WHY}`;
  throw new HttpError('validation_failed', `${found.param} ${message}`, { param: found.param, details: [{ param: found.param, message }] });
}

/** 400 for a path parameter: the path names a resource, and no resource is named so. */
export function refuseUnstorablePathParameters(params: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(params)) {
    if (isStorableText(value)) continue;
    const param = `path.${name}`;
    throw new HttpError('bad_request', `The path parameter ${name} contains ${WHY}`, { param, details: [{ param, message: `contains ${WHY}` }] });
  }
}
