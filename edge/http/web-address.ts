import type { JsonSchema } from './validation';

/**
 * The one schema fragment for an address a person may click (a company's website, a brand's website): http or
 * https only. ajv's `uri` format alone accepts any scheme, and a `javascript:` or `vbscript:` "website" shown as a
 * link in a dashboard runs script in whoever clicks it. The pattern also asks for a host after `//`, which `uri`
 * does not (`http://` passes it). Scheme letters are case-insensitive (RFC 3986, 3.1), hence the classes.
 */
export const HTTP_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]+';

export function webAddress(maxLength: number): JsonSchema {
  return { type: 'string', maxLength, format: 'uri', pattern: HTTP_URL_PATTERN, description: 'An http or https URL' };
}

/**
 * A web address that may be left empty (the spec's "empty string or URI"). `if`/`then` rather than `anyOf`, so a
 * refusal names the broken rule (format or pattern) instead of "must be equal to constant".
 */
export function optionalWebAddress(maxLength: number): JsonSchema {
  return { type: 'string', maxLength, default: '', if: { minLength: 1 }, then: webAddress(maxLength) };
}
