/**
 * A connector call that produced no business answer. Declines are never ConnectorFailures: they are data
 * returned by the gateway. This is thrown for the other cases, which routing treats alike (fall back to the
 * next account) but the payment pipeline does not:
 *  - kind 'technical': the connector answered with an error or could not be reached;
 *  - kind 'timeout': no answer within the deadline.
 * `outcomeUnknown` is true when the request may have been acted on (a deadline after sending, a connection
 * dropped mid-call): the attempt is resolved by querying the acquirer, never by charging again.
 * `nothingSent` is true when the request provably never left the core (no connection).
 */
export type ConnectorFailureKind = 'technical' | 'timeout';

export interface ConnectorFailureDetails {
  readonly outcomeUnknown: boolean;
  readonly nothingSent: boolean;
  /** Repeating the same request with the same idempotency key may succeed. */
  readonly retryable: boolean;
  /** Transport-level code (e.g. the gRPC status name), for logs and attempt records only. */
  readonly transportCode?: string;
  readonly connectorSlug?: string;
}

export class ConnectorFailure extends Error {
  readonly outcomeUnknown: boolean;
  readonly nothingSent: boolean;
  readonly retryable: boolean;
  readonly transportCode?: string;
  readonly connectorSlug?: string;

  constructor(
    readonly kind: ConnectorFailureKind,
    message: string,
    details: Partial<ConnectorFailureDetails> = {},
  ) {
    super(message);
    this.name = 'ConnectorFailure';
    this.outcomeUnknown = details.outcomeUnknown ?? false;
    this.nothingSent = details.nothingSent ?? false;
    this.retryable = details.retryable ?? false;
    if (details.transportCode !== undefined) this.transportCode = details.transportCode;
    if (details.connectorSlug !== undefined) this.connectorSlug = details.connectorSlug;
  }
}

export function isConnectorFailure(error: unknown): error is ConnectorFailure {
  return error instanceof ConnectorFailure;
}
