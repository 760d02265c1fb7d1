/**
 * Starts the whole service for end-to-end tests: its own database (migrated), its own JetStream stream
 * (or the in-process transport), the sandbox adapters on loopback, every module, and the edge on a free
 * port. `merchant()` creates an organization with a sandbox and a live API key. `startTestServiceWith(modules)`
 * starts only the given modules, and `services` is typed by what they provide.
 */
import { loadConfig, type Config } from '../../infrastructure/config/config';
import { createLogger } from '../../infrastructure/logging/logger';
import { migrate, openOrm } from '../../infrastructure/persistence/orm';
import { SystemClock } from '../../infrastructure/clock/system-clock';
import { UlidIdGenerator } from '../../infrastructure/clock/ulid-id-generator';
import { InProcessTransport } from '../../infrastructure/messaging/in-process-transport';
import { JetStreamTransport } from '../../infrastructure/messaging/jetstream-transport';
import type { EventTransport } from '../../infrastructure/messaging/event-transport';
import { createCore, type AdapterAddress, type Core } from '../../infrastructure/main/core';
import { startEmbeddedAdapters } from '../../infrastructure/main/embedded-adapters';
import type { ModuleList } from '../../infrastructure/main/module';
import { MODULES, type ProductServices } from '../../infrastructure/main/modules';
import { assembleService, type RunningService } from '../../infrastructure/main/service';
import type { Clock } from '../../domain/ports/clock';
import type { DestinationStream } from 'pino';
import { closeAfterRun } from './root-hooks';
import { createTestDatabase, testServers, uniqueStream } from './test-infrastructure';
import { ApiClient } from './api-client';

export interface TestServiceOptions {
  readonly config?: Partial<Config>;
  readonly env?: Record<string, string>;
  readonly clock?: Clock;
  readonly transport?: 'jetstream' | 'in-process';
  /** Start the embedded sandbox adapters (default true) or use these addresses. */
  readonly adapters?: readonly AdapterAddress[];
  /** The embedded adapters in worker threads of their own, as `make run` starts them (default: on the test's thread). */
  readonly adapterThreads?: boolean;
  readonly workers?: boolean;
  readonly edge?: boolean;
  /** Another process of that service's installation: the same database and event stream (the owner cleans up). */
  readonly joining?: TestService<object>;
  /** The address the service reaches its database by, given the test database's (e.g. through a DatabaseProxy). */
  readonly databaseAddress?: (databaseUrl: string) => string;
  /** Where the service's logs go (default stdout); set LOG_LEVEL in env to see any. */
  readonly logDestination?: DestinationStream;
}

export interface Merchant {
  readonly organizationId: string;
  readonly sandboxKey: string;
  readonly liveKey: string;
  readonly sandbox: ApiClient;
  readonly live: ApiClient;
}

export interface TestService<Services extends object = object> {
  readonly url: string;
  readonly core: Core;
  readonly service: RunningService<Services>;
  /** What the modules provide (e.g. `services.paymentRecovery` to run the recovery worker's task by hand). */
  readonly services: Services;
  readonly config: Config;
  merchant(name?: string): Promise<Merchant>;
  client(key?: string): ApiClient;
  stop(): Promise<void>;
}

/** A service with every product module (`MODULES`). */
export function startTestService(options: TestServiceOptions = {}): Promise<TestService<ProductServices>> {
  return startTestServiceWith(MODULES, options);
}

/** A service with only these modules, e.g. `moduleList().with(CONNECTORS_MODULE).with(paymentsModule())` (no flows). */
export async function startTestServiceWith<Services extends object>(
  modules: ModuleList<Services>,
  options: TestServiceOptions = {},
): Promise<TestService<Services>> {
  const servers = await testServers();
  const testDatabaseUrl = options.joining ? options.joining.config.databaseUrl! : await createTestDatabase();
  const databaseUrl = options.databaseAddress ? options.databaseAddress(testDatabaseUrl) : testDatabaseUrl;
  const { stream, subjectPrefix } = options.joining
    ? { stream: options.joining.config.natsStream, subjectPrefix: options.joining.config.natsSubjectPrefix }
    : uniqueStream();
  const useJetStream = (options.transport ?? 'jetstream') === 'jetstream';
  const config: Config = {
    ...loadConfig({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', ...options.env }),
    databaseUrl,
    natsUrl: useJetStream ? servers.natsUrl : null,
    natsStream: stream,
    natsSubjectPrefix: subjectPrefix,
    databasePoolSize: 10,
    port: 0,
    ...options.config,
  };
  const logger = createLogger(config.logLevel, options.logDestination);
  const orm = await openOrm(databaseUrl, config.databasePoolSize, logger);
  await migrate(orm);
  const transport: EventTransport = useJetStream
    ? await JetStreamTransport.connect({ url: config.natsUrl ?? servers.natsUrl, stream, subjectPrefix, ackWaitMs: config.natsAckWaitMs }, logger)
    : new InProcessTransport(logger);
  const embeddedAdapters = options.adapters ? null : await startEmbeddedAdapters(config, logger, { threads: options.adapterThreads ?? false });
  const core = createCore({
    config,
    logger,
    orm,
    transport,
    clock: options.clock ?? new SystemClock(),
    ids: new UlidIdGenerator(),
    adapters: options.adapters ?? embeddedAdapters?.adapters ?? [],
    relayPollIntervalMs: 200,
  });
  const service = await assembleService(
    core,
    modules,
    { edge: options.edge ?? true, worker: options.workers ?? true },
    { port: 0, host: '127.0.0.1' },
  );
  const url = service.url!;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await service.stop();
    await embeddedAdapters?.stop();
    if (transport instanceof JetStreamTransport && !options.joining) await transport.deleteStream();
    await transport.close();
    await orm.close(true);
  };
  closeAfterRun(stop);
  let merchants = 0;
  return {
    url,
    core,
    service,
    services: service.services,
    config,
    client: (key?: string) => new ApiClient(url, key),
    async merchant(name?: string) {
      const organization = await core.organizations.create.execute({ name: name ?? `Merchant ${++merchants}` });
      const sandbox = await core.apiKeys.create.execute({ organizationId: organization.id, environment: 'sandbox', name: 'test sandbox' });
      const live = await core.apiKeys.create.execute({ organizationId: organization.id, environment: 'live', name: 'test live' });
      return {
        organizationId: organization.id,
        sandboxKey: sandbox.secret,
        liveKey: live.secret,
        sandbox: new ApiClient(url, sandbox.secret),
        live: new ApiClient(url, live.secret),
      };
    },
    stop,
  };
}

let shared: Promise<TestService> | null = null;

/** One service with the default configuration, shared by every suite of the run that needs no other. */
export function sharedTestService(): Promise<TestService> {
  shared ??= startTestService();
  return shared;
}
