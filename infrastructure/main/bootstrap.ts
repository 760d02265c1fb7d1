/**
 * Opens what a process needs from its configuration: the database (embedded PGlite when DATABASE_URL is
 * absent), migrations, the event transport (in-process when NATS_URL is absent) and the adapters.
 */
import { loadConfig, type Config } from '../config/config';
import { createLogger, type Logger } from '../logging/logger';
import { startEmbeddedDatabase, waitForRunningEmbeddedDatabase, type EmbeddedDatabase } from '../persistence/embedded-database';
import { migrate, openOrm, type Orm } from '../persistence/orm';
import { SystemClock } from '../clock/system-clock';
import { UlidIdGenerator } from '../clock/ulid-id-generator';
import type { EventTransport } from '../messaging/event-transport';
import { InProcessTransport } from '../messaging/in-process-transport';
import { JetStreamTransport } from '../messaging/jetstream-transport';
import { createCore, type Core } from './core';
import { startEmbeddedAdapters, type EmbeddedAdapters } from './embedded-adapters';
import { credentialsCipher } from './credentials-cipher';
import { unreachable } from '../config/unreachable-dependency';

export interface Infrastructure {
  readonly config: Config;
  readonly logger: Logger;
  readonly orm: Orm;
  readonly core: Core;
  close(): Promise<void>;
}

/**
 * `joinRunning`: an operator command may use the embedded database a running service is serving (PGlite
 * admits one process per data directory), instead of opening its own.
 */
export async function openDatabase(config: Config, logger: Logger, joinRunning = false): Promise<{ orm: Orm; embedded: EmbeddedDatabase | null }> {
  let embedded: EmbeddedDatabase | null = null;
  let url = config.databaseUrl ?? (joinRunning ? await waitForRunningEmbeddedDatabase(config.dataDir) : null);
  if (url && !config.databaseUrl) {
    try {
      const orm = await openOrm(url, 1);
      await orm.em.fork({ useContext: false }).execute('select 1');
      return { orm, embedded: null };
    } catch {
      url = null; // a stale socket announcement from a service that did not stop cleanly
    }
  }
  if (!url) {
    embedded = await startEmbeddedDatabase(config.dataDir);
    url = embedded.url;
    logger.info({ dataDir: config.dataDir }, 'embedded database (PGlite) started');
  }
  if (!config.databaseUrl) return { orm: await openOrm(url, config.databasePoolSize, logger), embedded };
  return { orm: await reachableDatabase(config.databaseUrl, config.databasePoolSize, logger), embedded };
}

/** Opens DATABASE_URL and proves it answers, so an unreachable server is one sentence, not a driver stack. */
async function reachableDatabase(url: string, poolSize: number, logger: Logger): Promise<Orm> {
  let orm: Orm | undefined;
  try {
    orm = await openOrm(url, poolSize, logger);
    await orm.em.fork({ useContext: false }).execute('select 1');
    return orm;
  } catch (error) {
    await orm?.close(true).catch(() => undefined);
    throw unreachable('DATABASE_URL', url, 'PostgreSQL', error);
  }
}

async function reachableJetStream(config: Config & { natsUrl: string }, logger: Logger): Promise<EventTransport> {
  const { natsUrl: url, natsStream: stream, natsSubjectPrefix: subjectPrefix, natsAckWaitMs: ackWaitMs } = config;
  try {
    return await JetStreamTransport.connect({ url, stream, subjectPrefix, ackWaitMs }, logger);
  } catch (error) {
    throw unreachable('NATS_URL', url, 'NATS JetStream', error);
  }
}

export async function openInfrastructure(options: { config?: Config; startAdapters: boolean }): Promise<Infrastructure> {
  const config = options.config ?? loadConfig();
  const logger = createLogger(config.logLevel);
  const { orm, embedded } = await openDatabase(config, logger);
  const applied = await migrate(orm, { cipher: credentialsCipher(config) });
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  let transport: EventTransport;
  try {
    transport = config.natsUrl ? await reachableJetStream({ ...config, natsUrl: config.natsUrl }, logger) : new InProcessTransport(logger);
  } catch (error) {
    await orm.close(true);
    await embedded?.stop();
    throw error;
  }
  let adapters: EmbeddedAdapters | null = null;
  if (options.startAdapters && config.connectorAdapters.length === 0) adapters = await startEmbeddedAdapters(config, logger, { threads: true });
  const core = createCore({
    config,
    logger,
    orm,
    transport,
    clock: new SystemClock(),
    ids: new UlidIdGenerator(),
    adapters: config.connectorAdapters.length > 0 ? config.connectorAdapters : adapters?.adapters ?? [],
  });
  return {
    config,
    logger,
    orm,
    core,
    async close() {
      await adapters?.stop();
      await transport.close();
      await orm.close(true);
      await embedded?.stop();
    },
  };
}
