/**
 * Embedded mode starts the sandbox connector adapters in-process, as real gRPC servers on loopback ports.
 * Distributed mode lists adapters in CONNECTOR_ADAPTERS instead and starts none here.
 */
import type { Config } from '../config/config';
import type { Logger } from '../logging/logger';
import type { AdapterAddress } from './core';
import { SHIPPED_ADAPTERS, type StartedAdapter } from './connector-process';

export interface EmbeddedAdapters {
  readonly adapters: AdapterAddress[];
  stop(): Promise<void>;
}

export async function startEmbeddedAdapters(config: Config, logger: Logger): Promise<EmbeddedAdapters> {
  const started: Array<{ slug: string; adapter: StartedAdapter }> = [];
  try {
    for (const [slug, shipped] of Object.entries(SHIPPED_ADAPTERS)) {
      const adapter = await shipped.start({ port: 0, host: '127.0.0.1', fraudReviewDelayMs: config.sandboxFraudReviewDelayMs });
      started.push({ slug, adapter });
    }
  } catch (error) {
    await Promise.all(started.map(({ adapter }) => adapter.stop()));
    throw error;
  }
  const vault = started.find(({ adapter }) => adapter.vaultUrl)?.adapter.vaultUrl;
  logger.info({ adapters: started.map(({ slug, adapter }) => `${slug}=${adapter.address}`), ...(vault ? { sandboxVault: vault } : {}) }, 'embedded connector adapters started');
  return {
    // Adapters that report asynchronous outcomes get the CoreNotifications address late: the payments module
    // serves it once the modules are built (see payments.module.ts, worker core-notifications).
    adapters: started.map(({ slug, adapter }) => ({
      slug,
      address: adapter.address,
      ...(adapter.setCoreNotificationsAddress ? { setCoreNotificationsAddress: (address: string) => adapter.setCoreNotificationsAddress!(address) } : {}),
    })),
    stop: async () => {
      await Promise.all(started.map(({ adapter }) => adapter.stop()));
    },
  };
}
