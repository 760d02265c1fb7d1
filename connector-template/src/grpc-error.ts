import type { status } from '@grpc/grpc-js';

/** An error carrying a gRPC status; server.ts answers it with that status and message. */
export class GrpcStatusError extends Error {
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
  }
}

export const grpcError = (code: status, message: string) => new GrpcStatusError(code, message);
