import {
  Server,
  ServerCredentials,
  status,
  type handleUnaryCall,
  type ServerUnaryCall,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { installChurnFreeHttp2StreamRegistries } from './http2-stream-registries';
import { contextOf, inSpan, SpanKind } from '../tracing/tracing';

/** One service to expose: the generated definition (e.g. `AcquirerConnectorService`) and its handlers. */
export interface GrpcServiceRegistration {
  readonly definition: ServiceDefinition;
  readonly implementation: UntypedServiceImplementation;
}

export interface StartGrpcServerOptions {
  readonly services: readonly GrpcServiceRegistration[];
  /** 0 (default) picks a free port; tests and embedded mode use it. */
  readonly port?: number;
  readonly host?: string;
}

export interface RunningGrpcServer {
  readonly server: Server;
  readonly host: string;
  readonly port: number;
  /** `host:port`, what a client dials. */
  readonly address: string;
  readonly health: HealthImplementation;
  /** Stops accepting calls, lets in-flight calls finish for up to `graceMs`, then cuts the rest. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

/** Fully-qualified service name (`connector.v1.AcquirerConnector`), read from a method path. */
export function serviceNameOf(definition: ServiceDefinition): string {
  const first = Object.values(definition)[0];
  if (!first) throw new Error('gRPC service definition without methods');
  return first.path.split('/')[1]!;
}

/**
 * Starts a gRPC server on a loopback address by default and registers the standard health service
 * (grpc.health.v1.Health), reporting SERVING for the server ('') and each registered service.
 */
export async function startGrpcServer(options: StartGrpcServerOptions): Promise<RunningGrpcServer> {
  installChurnFreeHttp2StreamRegistries();
  const host = options.host ?? '127.0.0.1';
  const server = new Server({
    'grpc.keepalive_permit_without_calls': 1,
    'grpc.http2.min_ping_interval_without_data_ms': 5_000,
  });
  const statusMap: Record<string, 'SERVING'> = { '': 'SERVING' };
  for (const { definition, implementation } of options.services) {
    server.addService(definition, implementation);
    statusMap[serviceNameOf(definition)] = 'SERVING';
  }
  const health = new HealthImplementation(statusMap);
  health.addToServer(server);

  const port = await new Promise<number>((resolve, reject) => {
    const bindHost = host.includes(':') ? `[${host}]` : host;
    server.bindAsync(`${bindHost}:${options.port ?? 0}`, ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });

  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 2_000): Promise<void> => {
    stopping ??= new Promise<void>((resolve) => {
      for (const name of Object.keys(statusMap)) health.setStatus(name, 'NOT_SERVING');
      const force = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, graceMs);
      force.unref();
      server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
    return stopping;
  };

  return { server, host, port, address: `${host.includes(':') ? `[${host}]` : host}:${port}`, health, stop };
}

/**
 * Adapts an async handler to grpc-js's callback style. A thrown error carrying a numeric gRPC `code` (see
 * `grpcError`) becomes that status; anything else becomes INTERNAL without leaking its message.
 */
export function unaryHandler<Req, Res>(
  handler: (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>,
): handleUnaryCall<Req, Res> {
  return (call, callback) => {
    // The server span joins the caller's trace through the traceparent in the call's metadata (when tracing is on).
    const traceparent = call.metadata.get('traceparent')[0];
    const path = (call as { getPath?: () => string }).getPath?.() ?? 'unary';
    const parent = contextOf(typeof traceparent === 'string' ? traceparent : undefined);
    inSpan(`grpc ${path}`, { kind: SpanKind.SERVER, parent, attributes: { 'rpc.system': 'grpc', 'rpc.method': path } }, () => handler(call.request, call)).then(
      (response) => callback(null, response),
      (error: unknown) => {
        const code = (error as { code?: unknown })?.code;
        if (typeof code === 'number') {
          callback({ code, details: (error as { details?: string }).details ?? (error as Error).message });
        } else {
          callback({ code: status.INTERNAL, details: 'Internal adapter error' });
        }
      },
    );
  };
}
