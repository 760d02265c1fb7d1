/**
 * A database or event server the configuration names but start-up cannot reach: one sentence naming the
 * variable and the address, never the credentials a connection string may carry.
 */
import { ConfigError } from './config';

/** `scheme://host:port/path` of a connection string, without user, password or query; the raw text if unparsable. */
export function addressOf(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return 'an address that is not a URL';
  }
}

export function unreachable(variable: string, connectionString: string, what: string, cause: unknown): ConfigError {
  const reason = (cause as { code?: unknown })?.code ?? (cause instanceof Error ? cause.message : String(cause));
  return new ConfigError(`${variable}: cannot reach ${what} at ${addressOf(connectionString)} (${String(reason)}); start it or correct ${variable}.`);
}
