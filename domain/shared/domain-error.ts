import type { ErrorCode } from './error-codes';

/**
 * A rule of the domain refused an operation. The code is one of ERROR_CODES (stable snake_case, what clients see);
 * the edge maps codes to HTTP statuses in one table (edge/http/error-status.ts). No HTTP knowledge here.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly meta: { param?: string | null; details?: Array<{ param: string; message: string }>; [key: string]: unknown } = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** A refusal that holds only for now (another operation is in flight): the same request may succeed in a moment. */
export function isTransientRefusal(error: unknown): boolean {
  return error instanceof DomainError && error.meta.transient === true;
}

/** A record that does not exist in the caller's organization and environment (never "exists elsewhere"). */
export class NotFoundError extends DomainError {
  constructor(resource: string, id?: string) {
    super('not_found', id ? `No such ${resource}: ${id}` : `No such ${resource}`);
  }
}

/** The aggregate's state does not allow the requested trigger; carries the illegal pair. */
export class InvalidStateError extends DomainError {
  constructor(resource: string, state: string, trigger: string) {
    super('invalid_state', `The ${resource} is ${state}; ${trigger} is not allowed in that state`, { state, trigger });
  }
}
