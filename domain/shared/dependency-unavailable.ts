/**
 * A dependency the service needs (the database) could not serve an operation for now: the connection was refused,
 * reset or terminated, or none could be had in time. Nothing was decided, so the same request may succeed in a
 * moment. Infrastructure raises it where the driver fails (a label, like ConnectorFailure's, not a domain rule);
 * the edge answers 503 with Retry-After and never stores it as an Idempotency-Key's answer.
 *
 * The message holds codes only: the driver's own message can embed the statement and its values.
 */
export class DependencyUnavailableError extends Error {
  constructor(
    readonly dependency: string,
    /** The driver's code: an errno name (ECONNRESET), a SQLSTATE (57P01) or a pool condition (pool_timeout). */
    readonly reason: string,
    readonly errno?: number,
  ) {
    super(`The ${dependency} is unavailable (${reason})`);
    this.name = 'DependencyUnavailableError';
  }
}

export function isDependencyUnavailable(error: unknown): error is DependencyUnavailableError {
  return error instanceof DependencyUnavailableError;
}
