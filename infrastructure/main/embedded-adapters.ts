/**
 * Embedded mode starts the sandbox connector adapters in-process, as real gRPC servers on loopback ports.
 * Distributed mode lists adapters in CONNECTOR_ADAPTERS instead and starts none here.
 *
 * `make run` (main.ts) starts each adapter in a worker thread of its own, so the adapter's side of every call
 * (gRPC server, the sandbox's ledger) runs beside the core's event loop instead of on it: in one process under
 * load that loop is the bottleneck, and the adapter's side was about a seventh of its work per payment. Tests
 * start them on the caller's thread, where a test can reach them directly, unless they ask for threads.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Config } from '../config/config';
import type { Logger } from '../logging/logger';
import type { AdapterAddress } from './core';
import { SHIPPED_ADAPTERS, type AdapterStartOptions, type StartedAdapter } from './connector-process';
import type { AdapterThreadData, FromAdapterThread, ToAdapterThread } from './adapter-thread';

export interface EmbeddedAdapters {
  readonly adapters: AdapterAddress[];
  /** The worker threads the adapters run in (none when they run on the caller's thread). */
  readonly threadIds: number[];
  stop(): Promise<void>;
}

export async function startEmbeddedAdapters(config: Config, logger: Logger, options: { threads?: boolean } = {}): Promise<EmbeddedAdapters> {
  const started: Array<{ slug: string; adapter: StartedAdapter }> = [];
  try {
    for (const [slug, shipped] of Object.entries(SHIPPED_ADAPTERS)) {
      const startOptions: AdapterStartOptions = { port: 0, host: '127.0.0.1', fraudReviewDelayMs: config.sandboxFraudReviewDelayMs };
      const adapter = options.threads ? await startInThread(slug, startOptions, logger) : await shipped.start(startOptions);
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
      ...(adapter.vaultUrl ? { vaultUrl: adapter.vaultUrl } : {}),
    })),
    threadIds: started.flatMap(({ adapter }) => (adapter.threadId === undefined ? [] : [adapter.threadId])),
    stop: async () => {
      await Promise.all(started.map(({ adapter }) => adapter.stop()));
    },
  };
}

/** The thread's entry: compiled JavaScript, or TypeScript under the test runner's loader. */
const ADAPTER_THREAD = path.join(__dirname, `adapter-thread${path.extname(__filename)}`);
const STOP_GRACE_MS = 3_000;

function startInThread(slug: string, options: AdapterStartOptions, logger: Logger): Promise<StartedAdapter> {
  const workerData: AdapterThreadData = { slug, options };
  const worker = new Worker(ADAPTER_THREAD, {
    workerData,
    ...(ADAPTER_THREAD.endsWith('.ts') ? { execArgv: [...process.execArgv, '--require', 'tsx/cjs'] } : {}),
  });
  return new Promise((resolve, reject) => {
    const exitedEarly = (code: number) => reject(new Error(`the ${slug} adapter thread exited with code ${code} before it listened`));
    worker.once('error', reject);
    worker.once('exit', exitedEarly);
    worker.once('message', (message: FromAdapterThread) => {
      worker.off('error', reject);
      worker.off('exit', exitedEarly);
      if (message.type !== 'started') {
        void worker.terminate();
        reject(new Error(message.type === 'failed' ? message.message : `the ${slug} adapter thread stopped before it listened`));
        return;
      }
      worker.on('error', (error) => logger.error({ err: error, slug }, 'embedded adapter thread failed'));
      resolve({
        port: message.port,
        address: message.address,
        ...(message.vaultUrl ? { vaultUrl: message.vaultUrl } : {}),
        ...(message.reportsAsynchronously ? { setCoreNotificationsAddress: (address: string) => worker.postMessage({ type: 'core-notifications', address } satisfies ToAdapterThread) } : {}),
        threadId: worker.threadId,
        stop: () => stopThread(worker),
      });
    });
  });
}

/** Asks the adapter to stop (its server drains), then ends the thread, whatever it answered within the grace. */
async function stopThread(worker: Worker): Promise<void> {
  const stopped = new Promise<void>((resolve) => {
    worker.once('exit', () => resolve());
    worker.on('message', (message: FromAdapterThread) => message.type === 'stopped' && resolve());
  });
  worker.postMessage({ type: 'stop' } satisfies ToAdapterThread);
  await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref())]);
  await worker.terminate();
}
