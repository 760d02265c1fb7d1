import { status, type ServerUnaryCall } from '@grpc/grpc-js';
import { grpcError } from './grpc-error';

/**
 * The core sends its absolute deadline as this metadata (ISO 8601 UTC). gRPC's own deadline (grpc-timeout) is
 * counted from when this server READS the call, so after a pause between the core's send and our read it looks fresh
 * although the core already gave up and may have charged through another acquirer. Keep this server's clock NTP-synced.
 */
const DEADLINE_AT = 'connector-deadline-at';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

/** The earlier of the gRPC deadline and connector-deadline-at, in epoch ms; a malformed value is INVALID_ARGUMENT. */
function deadlineMs(call: ServerUnaryCall<unknown, unknown>): number {
  const grpcDeadline = call.getDeadline();
  const fromTimeout = grpcDeadline instanceof Date ? grpcDeadline.getTime() : grpcDeadline;
  const values = call.metadata.get(DEADLINE_AT);
  if (values.length === 0) return fromTimeout;
  const at = values.length === 1 && ISO_UTC.test(String(values[0])) ? Date.parse(String(values[0])) : Number.NaN;
  if (Number.isNaN(at)) throw grpcError(status.INVALID_ARGUMENT, `${DEADLINE_AT} must be one ISO 8601 UTC time`);
  return Math.min(fromTimeout, at);
}

/**
 * Call before any effect and again right before committing it: past the deadline (or cancelled) nothing is executed
 * and the answer is DEADLINE_EXCEEDED, which the core reads as "outcome unknown" and resolves with QueryCharge.
 */
export function assertWithinDeadline(call: ServerUnaryCall<unknown, unknown>): void {
  if (call.cancelled) throw grpcError(status.DEADLINE_EXCEEDED, 'The caller cancelled the call; nothing was executed');
  if (Date.now() >= deadlineMs(call)) throw grpcError(status.DEADLINE_EXCEEDED, 'The call arrived past its deadline; nothing was executed');
}
