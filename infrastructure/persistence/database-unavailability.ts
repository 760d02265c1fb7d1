/**
 * Which driver failures mean "the database cannot serve us right now" (as opposed to a statement it refused):
 * the connection refused, reset or terminated, the server shutting down or out of connections, no pooled
 * connection in time. They become a DependencyUnavailableError where the driver raises them (the MikroORM
 * exception converter, the transactor's pool), so the edge answers 503 and logs codes, never the statement.
 */
import { DependencyUnavailableError } from '../../domain/shared/dependency-unavailable';

const CONNECTION_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs of an unavailable server: class 08 (connection exception), 57P01 admin_shutdown, 57P02 crash_shutdown,
 * 57P03 cannot_connect_now (starting up, in recovery), 57P05 idle_session_timeout, 53300 too_many_connections.
 * Not 08P01 protocol_violation: what a statement sent (text PostgreSQL cannot store) caused it, not an outage.
 */
const UNAVAILABLE_SQLSTATE = /^(08(?!P01)[0-9A-Z]{3}|57P0[1235]|53300)$/;

/** pg's messages for a connection lost without an errno (the server closed it, or the client gave up on it); MikroORM puts the statement first. */
const LOST_CONNECTION = /(Connection terminated|Connection ended unexpectedly|Client has encountered a connection error|Client was closed)/;
/** knex's (tarn's) pool gave no connection within its acquire timeout; MikroORM may put the statement first. */
const POOL_TIMEOUT = /Timeout acquiring a connection/;

/** The unavailability `error` reports, or null when it is anything else (a refused statement, a bug). */
export function databaseUnavailability(error: unknown): DependencyUnavailableError | null {
  if (error instanceof DependencyUnavailableError) return error;
  if (typeof error !== 'object' || error === null) return null;
  const { code, errno, message, name } = error as { code?: unknown; errno?: unknown; message?: unknown; name?: unknown };
  const errnoNumber = typeof errno === 'number' ? errno : undefined;
  if (typeof code === 'string' && (CONNECTION_ERRNOS.has(code) || UNAVAILABLE_SQLSTATE.test(code))) {
    return new DependencyUnavailableError('database', code, errnoNumber);
  }
  if (name === 'KnexTimeoutError' || name === 'TimeoutError' || (typeof message === 'string' && POOL_TIMEOUT.test(message))) {
    return new DependencyUnavailableError('database', 'pool_timeout');
  }
  if (typeof message === 'string' && LOST_CONNECTION.test(message)) return new DependencyUnavailableError('database', 'connection_lost');
  return null;
}

/** Rethrows `error` as a DependencyUnavailableError when it is one, else as it is. */
export function rethrowUnavailable(error: unknown): never {
  throw databaseUnavailability(error) ?? error;
}
