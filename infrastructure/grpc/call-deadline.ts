import { Metadata, status, type ServerUnaryCall } from '@grpc/grpc-js';
import { grpcError } from './grpc-errors';

/**
 * Metadata key of the caller's absolute deadline, ISO 8601 UTC with milliseconds (`2026-07-01T09:00:00.300Z`).
 *
 * gRPC carries a deadline as `grpc-timeout`, a duration that the server turns into a time when it READS the call.
 * An adapter frozen (SIGSTOP, a GC pause, a stalled VM) between the core's send and its read therefore sees a fresh
 * deadline long after the core gave up and fell back to another account; the absolute time is what tells it the
 * call is stale. It assumes the adapter's clock is synchronized (NTP) with the core's.
 */
export const DEADLINE_AT_METADATA_KEY = 'connector-deadline-at';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

/** The metadata a caller sends with a call whose deadline is `deadline` (added to `metadata` when given). */
export function deadlineMetadata(deadline: Date, metadata: Metadata = new Metadata()): Metadata {
  metadata.set(DEADLINE_AT_METADATA_KEY, deadline.toISOString());
  return metadata;
}

type CallSeen = Pick<ServerUnaryCall<unknown, unknown>, 'getDeadline' | 'metadata' | 'cancelled'>;

/**
 * The call's deadline in epoch milliseconds: the earlier of the gRPC deadline and `connector-deadline-at`;
 * Infinity when the caller set neither. A malformed `connector-deadline-at` is INVALID_ARGUMENT (a request the
 * adapter cannot read), never ignored: ignoring it would execute a call the caller may have given up on.
 */
export function callDeadlineMs(call: CallSeen): number {
  const grpcDeadline = call.getDeadline();
  const fromTimeout = grpcDeadline instanceof Date ? grpcDeadline.getTime() : grpcDeadline;
  const values = call.metadata.get(DEADLINE_AT_METADATA_KEY);
  if (values.length === 0) return fromTimeout;
  const text = String(values[0]);
  const at = ISO_UTC.test(text) ? Date.parse(text) : Number.NaN;
  if (values.length > 1 || Number.isNaN(at)) {
    throw grpcError(status.INVALID_ARGUMENT, `${DEADLINE_AT_METADATA_KEY} must be one ISO 8601 UTC time (e.g. 2026-07-01T09:00:00.300Z)`);
  }
  return Math.min(fromTimeout, at);
}

/**
 * Throws DEADLINE_EXCEEDED when the caller has given up on the call: its deadline passed, or it cancelled. An
 * adapter calls it before executing any effect (authorize, capture, void, refund, a charge...) and again right
 * before committing it: the caller treats a passed deadline as "outcome unknown" and may already have charged
 * the cardholder through another account, so an effect executed late is a double charge.
 */
export function assertWithinDeadline(call: CallSeen, now: number = Date.now()): void {
  if (call.cancelled) throw grpcError(status.DEADLINE_EXCEEDED, 'The caller cancelled the call; nothing was executed');
  if (now >= callDeadlineMs(call)) throw grpcError(status.DEADLINE_EXCEEDED, 'The call arrived or resumed past its deadline; nothing was executed');
}
