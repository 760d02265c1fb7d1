import { DomainError } from '../shared/domain-error';
import type { Environment } from '../shared/environment';
import { isInternalAddress, isIpLiteral, stripBrackets } from './internal-address';

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

function refuse(code: string, message: string): never {
  throw new DomainError(code, message, { param: 'body.url' });
}

/** localhost is a developer convenience: sandbox on a local installation only (spec: URL rules 4). */
export function allowsLocalhost(ctx: UrlContext): boolean {
  return ctx.environment === 'sandbox' && ctx.deployment === 'local';
}

/**
 * Registration-time URL rules 1, 2 and 4 (spec: Events, URL rules). Returns the normalized URL (WHATWG
 * serialization: lowercase scheme and host, default port dropped, fragment removed) which is also what
 * "registered once per environment" compares.
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
  const host = stripBrackets(url.hostname.toLowerCase()).replace(/\.$/, '');
  if (host === '') refuse('invalid_webhook_url', 'url must name a host.');

  if (LOCALHOST_NAMES.has(host)) {
    if (!allowsLocalhost(ctx)) {
      refuse('internal_address_blocked', 'localhost is accepted only in sandbox on a local installation.');
    }
    url.hash = '';
    return url.href;
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
  url.hash = '';
  return url.href;
}

/**
 * Connection-time check (spec: URL rules 3): every address the host resolved to must be public. Loopback
 * stays allowed for a localhost URL that registration accepted (sandbox on a local installation).
 */
export function assertDeliverableAddresses(addresses: readonly string[], ctx: UrlContext, hostname: string): void {
  const host = stripBrackets(hostname.toLowerCase()).replace(/\.$/, '');
  const loopbackAllowed = LOCALHOST_NAMES.has(host) && allowsLocalhost(ctx);
  if (addresses.length === 0) throw new DomainError('internal_address_blocked', `${hostname} did not resolve to any address.`);
  for (const address of addresses) {
    if (loopbackAllowed && isLoopback(address)) continue;
    if (isInternalAddress(address)) {
      throw new DomainError('internal_address_blocked', `Delivery blocked: ${hostname} resolved to an internal address.`);
    }
  }
}

function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}
