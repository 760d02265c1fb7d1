import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';

/**
 * Infrastructure error labels for a failed gRPC call. Labels, not subclasses, so one error can carry several
 * facts and callers test only the fact they care about:
 *  - retryable: repeating the same request (same idempotency key) may succeed;
 *  - outcomeUnknown: the request reached the server and no answer came back (deadline after sending, connection
 *    dropped mid-call): the remote side may have acted, so resolve by querying, never by charging again;
 *  - nothingSent: the request never left this process (no connection, no pick before the deadline), so falling
 *    back to another connector is safe.
 */
export type GrpcErrorLabel = 'retryable' | 'outcomeUnknown' | 'nothingSent';

export interface ClassifiedGrpcError {
  readonly code: GrpcStatus;
  readonly codeName: string;
  readonly details: string;
  readonly labels: ReadonlySet<GrpcErrorLabel>;
}

const RETRYABLE_CODES = new Set<GrpcStatus>([
  GrpcStatus.UNAVAILABLE,
  GrpcStatus.DEADLINE_EXCEEDED,
  GrpcStatus.RESOURCE_EXHAUSTED,
  GrpcStatus.ABORTED,
]);

export function isServiceError(error: unknown): error is ServiceError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'number' &&
    (error as { metadata?: unknown }).metadata instanceof Metadata
  );
}

/** grpc-js puts "remote_addr=" in deadline details only when the call was handed to a live connection. */
function deadlineBeforeSending(details: string): boolean {
  return !details.includes('remote_addr=') && /Waiting for LB pick|waiting for connection|name resolution/i.test(details);
}

function connectionNeverEstablished(details: string): boolean {
  return /No connection established|Name resolution failed|ECONNREFUSED|failed to connect/i.test(details);
}

/** Labels a gRPC status as seen by a client. `code` alone is not enough: UNAVAILABLE answered by the server is a
 * known failure, UNAVAILABLE raised by the client before connecting means nothing was sent. */
export function classifyGrpcError(error: { code: number; details?: string }): ClassifiedGrpcError {
  const code = error.code as GrpcStatus;
  const details = error.details ?? '';
  const labels = new Set<GrpcErrorLabel>();
  if (RETRYABLE_CODES.has(code)) labels.add('retryable');
  if (code === GrpcStatus.DEADLINE_EXCEEDED) {
    labels.add(deadlineBeforeSending(details) ? 'nothingSent' : 'outcomeUnknown');
  } else if (code === GrpcStatus.UNAVAILABLE) {
    if (connectionNeverEstablished(details)) labels.add('nothingSent');
    else if (/Connection dropped/i.test(details)) labels.add('outcomeUnknown');
  } else if (code === GrpcStatus.CANCELLED && /Connection dropped/i.test(details)) {
    labels.add('outcomeUnknown');
  }
  return { code, codeName: GrpcStatus[code] ?? `CODE_${code}`, details, labels };
}

export function hasLabel(error: unknown, label: GrpcErrorLabel): boolean {
  return isServiceError(error) && classifyGrpcError(error).labels.has(label);
}

/** Builds the error a server handler passes to its callback; the details are what the client sees. */
export function grpcError(code: GrpcStatus, details: string): Partial<ServiceError> & Error {
  return Object.assign(new Error(details), { code, details, metadata: new Metadata() });
}
