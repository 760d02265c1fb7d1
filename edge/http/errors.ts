import { statusForCode } from './error-status';

export interface ErrorDetail {
  readonly param: string;
  readonly message: string;
}

/** An error the edge itself raises (authentication, parsing, validation, limits). */
export class HttpError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly options: { status?: number; param?: string | null; details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }

  get status(): number {
    return this.options.status ?? statusForCode(this.code);
  }
}

/** contract.md section 3: the only error body shape, whatever the status. */
export function errorBody(code: string, message: string, requestId: string, param: string | null = null, details: readonly ErrorDetail[] = []) {
  return { error: { code, message, param, details: [...details], requestId } };
}
