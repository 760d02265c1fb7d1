import {
  credentials as grpcCredentials,
  type CallOptions,
  type Client,
  type ClientOptions,
  type ChannelCredentials,
  Metadata,
  type ServiceError,
} from '@grpc/grpc-js';
import { installChurnFreeHttp2StreamRegistries } from './http2-stream-registries';

/** Channel options every client of ours uses: keepalive pings so a dead peer is noticed between calls. */
export const DEFAULT_CLIENT_OPTIONS: ClientOptions = {
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.enable_retries': 0,
};

type ClientConstructor<C extends Client> = new (
  address: string,
  credentials: ChannelCredentials,
  options?: Partial<ClientOptions>,
) => C;

/** Creates a generated client (e.g. `AcquirerConnectorClient`) over an insecure loopback/cluster channel. */
export function createGrpcClient<C extends Client>(
  Ctor: ClientConstructor<C>,
  address: string,
  options: Partial<ClientOptions> = {},
): C {
  installChurnFreeHttp2StreamRegistries();
  return new Ctor(address, grpcCredentials.createInsecure(), { ...DEFAULT_CLIENT_OPTIONS, ...options });
}

/** Absolute deadline `ms` from now, as grpc-js wants it. */
export function deadlineIn(ms: number): Date {
  return new Date(Date.now() + ms);
}

/** Resolves once the channel is connected, rejects when it is not within `timeoutMs`. */
export function waitForReady(client: Client, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) =>
    client.waitForReady(deadlineIn(timeoutMs), (error) => (error ? reject(error) : resolve())),
  );
}

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => unknown;

/**
 * Promise form of a generated unary method with a per-call deadline. Rejects with the grpc-js ServiceError
 * untouched so `classifyGrpcError` can label it.
 */
export function callUnary<Req, Res>(
  client: Client,
  method: UnaryMethod<Req, Res>,
  request: Req,
  timeoutMs: number,
  metadata: Metadata = new Metadata(),
): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    method.call(client, request, metadata, { deadline: deadlineIn(timeoutMs) }, (error, response) =>
      error ? reject(error) : resolve(response),
    );
  });
}
