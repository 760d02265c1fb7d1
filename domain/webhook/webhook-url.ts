import { DomainError } from '../shared/domain-error';
import type { ErrorCode } from '../shared/error-codes';
import type { Environment } from '../shared/environment';
import { isInternalAddress, isIpLiteral, isLoopbackAddress, stripBrackets } from './internal-address';

export const MAX_URL_LENGTH = 2048;
export type Deployment = 'local' | 'production';

/** Name suffixes of private DNS zones; a public webhook URL never ends in one of them. */
export const INTRANET_SUFFIXES = [
  '.local',
  '.localhost',
  '.internal',
  '.intranet',
  '.lan',
  '.corp',
  '.home',
  '.home.arpa',
  '.localdomain',
  '.private',
  '.priv',
  '.intra',
  '.test',
  '.invalid',
  '.example',
  '.arpa',
  '.onion',
] as const;

const LOCALHOST_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

export interface UrlContext {
  readonly environment: Environment;
  readonly deployment: Deployment;
}

function refuse(code: ErrorCode, message: string): never {
  throw new DomainError(code, message, { param: 'body.url' });
}

/** localhost is a developer convenience: sandbox on a local installation only (spec: URL rules 4). */
export function allowsLocalhost(ctx: UrlContext): boolean {
  return ctx.environment === 'sandbox' && ctx.deployment === 'local';
}

/**
 * Registration-time URL rules 1, 2 and 4 (spec: Events, URL rules). Returns the normalized URL, which is what is
 * stored, delivered to, and compared by "registered once per environment": two spellings of one address must be
 * one endpoint, or the duplicate rule (and the endpoint maximum behind it) is a formality. See normalizedHref.
 */
export function validateWebhookUrl(raw: string, ctx: UrlContext): string {
  if (typeof raw !== 'string' || raw.length < 1 || raw.length > MAX_URL_LENGTH) {
    refuse('validation_failed', `url must be 1 to ${MAX_URL_LENGTH} characters.`);
  }
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return refuse('invalid_webhook_url', 'url is not a valid absolute URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') refuse('invalid_webhook_url', 'url must use https.');
  if (url.username !== '' || url.password !== '') refuse('invalid_webhook_url', 'url must not contain a user or password.');
  // Port 0 is no port a server listens on: connecting to it fails, or picks whatever the platform does with it.
  if (url.port === '0') refuse('invalid_webhook_url', 'url port must be 1 to 65535.');
  const host = hostOf(url.hostname);
  if (host === '') refuse('invalid_webhook_url', 'url must name a host.');

  if (LOCALHOST_NAMES.has(host)) {
    if (!allowsLocalhost(ctx)) {
      refuse('internal_address_blocked', 'localhost is accepted only in sandbox on a local installation.');
    }
    return normalizedHref(url);
  }
  if (url.protocol !== 'https:') refuse('invalid_webhook_url', 'url must use https.');
  if (isIpLiteral(host)) {
    if (isInternalAddress(host)) refuse('internal_address_blocked', 'url points to an internal network address.');
  } else {
    if (!host.includes('.')) refuse('internal_address_blocked', 'url host must be a fully qualified domain name.');
    if (INTRANET_SUFFIXES.some((suffix) => host.endsWith(suffix))) {
      refuse('internal_address_blocked', 'url host is an intranet name.');
    }
  }
  return normalizedHref(url);
}

/** The host as the rules read it: lowercase, without IPv6 brackets or the root label's trailing dot. */
function hostOf(hostname: string): string {
  return stripBrackets(hostname.toLowerCase()).replace(/\.+$/, '');
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * One spelling per address (RFC 3986 section 6.2.2 on top of the WHATWG serialization, which already lowercases
 * the scheme and host, drops a default port and resolves dot segments): the host's trailing dot goes (a fully
 * qualified name and its relative spelling reach the same host), an empty query `?` goes, percent-encoded
 * unreserved characters are decoded (`%7E` is `~`) and the remaining escapes use uppercase hex, and the fragment,
 * which is never sent, goes.
 */
export function normalizedHref(input: URL): string {
  const url = new URL(input.href);
  const host = hostOf(url.hostname);
  if (!url.hostname.startsWith('[') && host !== url.hostname) url.hostname = host;
  url.pathname = normalizePercentEncoding(url.pathname);
  const query = normalizePercentEncoding(url.search.slice(1));
  url.search = query === '' ? '' : `?${query}`;
  url.hash = '';
  return url.href;
}

function normalizePercentEncoding(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_escape, hex: string) => {
    const character = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(character) ? character : `%${hex.toUpperCase()}`;
  });
}

/**
 * Connection-time check (spec: URL rules 3): every address the host resolved to must be public. Loopback
 * stays allowed for a localhost URL that registration accepted (sandbox on a local installation).
 */
export function assertDeliverableAddresses(addresses: readonly string[], ctx: UrlContext, hostname: string): void {
  const host = hostOf(hostname);
  const loopbackAllowed = LOCALHOST_NAMES.has(host) && allowsLocalhost(ctx);
  if (addresses.length === 0) throw new DomainError('internal_address_blocked', `${hostname} did not resolve to any address.`);
  for (const address of addresses) {
    if (loopbackAllowed && isLoopbackAddress(address)) continue;
    if (isInternalAddress(address)) {
      throw new DomainError('internal_address_blocked', `Delivery blocked: ${hostname} resolved to an internal address.`);
    }
  }
}
