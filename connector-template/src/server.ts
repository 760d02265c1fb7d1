import path from 'node:path';
import { Server, ServerCredentials, loadPackageDefinition, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { HealthImplementation } from 'grpc-health-check';
import { TemplateAdapter } from './adapter';

const SERVICE_NAME = 'connector.v1.AcquirerConnector';

/**
 * Where connector/v1/connector.proto is: CONNECTOR_PROTO_DIR, else the service repository's proto/ folder beside
 * this template. Copy that folder along when you move the template out of the repository.
 */
export function protoDir(env: NodeJS.ProcessEnv = process.env): string {
  return env['CONNECTOR_PROTO_DIR'] ?? path.resolve(__dirname, '../../proto');
}

function acquirerServiceDefinition(): ServiceDefinition {
  // Field names in camelCase, int64 as numbers, enums as their names, a oneof's case in its own field (`source`).
  const definition = loadSync('connector/v1/connector.proto', {
    includeDirs: [protoDir()],
    keepCase: false,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const connector = (loadPackageDefinition(definition) as unknown as { connector: { v1: { AcquirerConnector: { service: ServiceDefinition } } } })
    .connector.v1;
  return connector.AcquirerConnector.service;
}

export interface RunningTemplateAdapter {
  readonly address: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** Replaces handlers by RPC name (e.g. to leave one out); defaults to the template's. */
  readonly implementation?: UntypedServiceImplementation;
}

/**
 * Serves AcquirerConnector and the standard health service, grpc.health.v1.Health: the core's readiness probe asks
 * it for the whole server (service ""), so an adapter without it never becomes ready.
 */
export async function startTemplateAdapter(options: StartOptions = {}): Promise<RunningTemplateAdapter> {
  const adapter = new TemplateAdapter();
  const server = new Server();
  server.addService(acquirerServiceDefinition(), options.implementation ?? adapter.service);
  const health = new HealthImplementation({ '': 'SERVING', [SERVICE_NAME]: 'SERVING' });
  health.addToServer(server);
  const host = options.host ?? '127.0.0.1';
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${options.port ?? 0}`, ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    address: `${host}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        // NOT_SERVING first, so the core stops routing here while in-flight calls finish.
        health.setStatus('', 'NOT_SERVING');
        health.setStatus(SERVICE_NAME, 'NOT_SERVING');
        adapter.partner.wakeAll();
        const force = setTimeout(() => server.forceShutdown(), 5_000).unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}

export { TemplateAdapter };
