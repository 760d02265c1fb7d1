import { statusForCode, type ApiErrorCode } from './error-status';

export interface ErrorDetail {
  readonly param: string;
  readonly message: string;
}

/** An error the edge itself raises (authentication, parsing, validation, limits). */
export class HttpError extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly options: { param?: string | null; details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }

  /** Always the table's status for the code, so the same code never answers two statuses. */
  get status(): number {
    return statusForCode(this.code);
  }
}

/** contract.md section 3: the only error body shape, whatever the status. */
export function errorBody(code: ApiErrorCode, message: string, requestId: string, param: string | null = null, details: readonly ErrorDetail[] = []) {
  return { error: { code, message, param, details: [...details], requestId } };
}
