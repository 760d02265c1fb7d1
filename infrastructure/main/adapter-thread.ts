/**
 * One shipped connector adapter in a worker thread of its own (embedded-adapters.ts): started with the options in
 * `workerData`, it posts its addresses once it listens; the parent thread posts the CoreNotifications address when
 * the core serves it, and `stop`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SHIPPED_ADAPTERS, type AdapterStartOptions, type StartedAdapter } from './connector-process';

export interface AdapterThreadData {
  readonly slug: string;
  readonly options: AdapterStartOptions;
}

export type ToAdapterThread = { readonly type: 'core-notifications'; readonly address: string } | { readonly type: 'stop' };

export type FromAdapterThread =
  | { readonly type: 'started'; readonly port: number; readonly address: string; readonly vaultUrl: string | null; readonly reportsAsynchronously: boolean }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'stopped' };

async function run(): Promise<void> {
  const { slug, options } = workerData as AdapterThreadData;
  const parent = parentPort!;
  const post = (message: FromAdapterThread) => parent.postMessage(message);
  let adapter: StartedAdapter;
  try {
    const shipped = SHIPPED_ADAPTERS[slug];
    if (!shipped) throw new Error(`no adapter named "${slug}"`);
    adapter = await shipped.start(options);
  } catch (error) {
    post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
    return;
  }
  parent.on('message', (message: ToAdapterThread) => {
    if (message.type === 'core-notifications') {
      adapter.setCoreNotificationsAddress?.(message.address);
      return;
    }
    void adapter.stop().finally(() => {
      post({ type: 'stopped' });
      parent.close();
    });
  });
  post({ type: 'started', port: adapter.port, address: adapter.address, vaultUrl: adapter.vaultUrl ?? null, reportsAsynchronously: adapter.setCoreNotificationsAddress !== undefined });
}

void run();
