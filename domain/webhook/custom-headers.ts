import { DomainError } from '../shared/domain-error';

export const MAX_CUSTOM_HEADERS = 10;
export const MAX_CUSTOM_HEADER_VALUE = 1024;

/**
 * Headers the service controls. `authorization` is deliberately NOT here: receivers commonly guard their
 * webhook route with a static bearer or basic credential, and the signature travels in Service-Signature,
 * so an Authorization extra header can never replace it. Hop-by-hop and framing headers are refused
 * because they would break the request itself.
 */
export const RESERVED_HEADER_NAMES: ReadonlySet<string> = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'user-agent',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'upgrade',
  'expect',
]);
export const RESERVED_HEADER_PREFIX = 'service-';

/** RFC 9110 token characters: what a header name may contain. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Printable ASCII plus space and tab; no CR/LF so a value cannot inject headers. */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

export type CustomHeaders = Record<string, string>;
export type CustomHeadersPatch = Record<string, string | null>;

function assertName(name: string, param: string): void {
  if (name.length < 1 || name.length > 256 || !HEADER_NAME.test(name)) {
    throw new DomainError('invalid_custom_header', `Header name "${name}" is not a valid HTTP header name.`, { param });
  }
  const lower = name.toLowerCase();
  if (RESERVED_HEADER_NAMES.has(lower) || lower.startsWith(RESERVED_HEADER_PREFIX)) {
    throw new DomainError('reserved_custom_header', `Header "${name}" is controlled by the service and cannot be set.`, { param });
  }
}

function assertValue(value: unknown, param: string): asserts value is string {
  if (typeof value !== 'string' || value.length > MAX_CUSTOM_HEADER_VALUE || !HEADER_VALUE.test(value)) {
    throw new DomainError('invalid_custom_header', `Header values must be ASCII text up to ${MAX_CUSTOM_HEADER_VALUE} characters.`, { param });
  }
}

function assertUniqueCaseInsensitive(headers: CustomHeaders, param: string): void {
  const seen = new Set<string>();
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (seen.has(lower)) throw new DomainError('invalid_custom_header', `Header "${name}" is given twice.`, { param: `${param}.${name}` });
    seen.add(lower);
  }
}

/** Validates a full customHeaders map (creation). */
export function validateCustomHeaders(headers: CustomHeaders, param = 'body.customHeaders'): CustomHeaders {
  const entries = Object.entries(headers ?? {});
  if (entries.length > MAX_CUSTOM_HEADERS) {
    throw new DomainError('too_many_custom_headers', `At most ${MAX_CUSTOM_HEADERS} extra headers are allowed.`, { param });
  }
  for (const [name, value] of entries) {
    assertName(name, `${param}.${name}`);
    assertValue(value, `${param}.${name}`);
  }
  assertUniqueCaseInsensitive(headers ?? {}, param);
  return { ...(headers ?? {}) };
}

/**
 * PATCH semantics (spec: Webhooks management): a text value creates or replaces, null removes, an omitted name
 * stays. Names match case-insensitively so `x-token` replaces `X-Token`. The result is validated as a whole.
 */
export function mergeCustomHeaders(current: CustomHeaders, patch: CustomHeadersPatch, param = 'body.customHeaders'): CustomHeaders {
  const result: CustomHeaders = { ...current };
  for (const [name, value] of Object.entries(patch)) {
    const existing = Object.keys(result).find((n) => n.toLowerCase() === name.toLowerCase());
    if (value === null) {
      if (existing !== undefined) delete result[existing];
      continue;
    }
    assertName(name, `${param}.${name}`);
    assertValue(value, `${param}.${name}`);
    if (existing !== undefined) delete result[existing];
    result[name] = value;
  }
  return validateCustomHeaders(result, param);
}

/** At most the last 4 characters stay visible, and fewer for short values so a short secret is never shown whole. */
export function maskHeaderValue(value: string): string {
  const visible = value.length >= 12 ? 4 : value.length >= 6 ? 2 : 0;
  return '*'.repeat(Math.min(8, Math.max(4, value.length - visible))) + value.slice(value.length - visible);
}

export function maskCustomHeaders(headers: CustomHeaders): CustomHeaders {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, maskHeaderValue(value)]));
}
