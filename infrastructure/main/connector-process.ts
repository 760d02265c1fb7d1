/**
 * The connector adapters this code base ships, by slug, as starters that run one adapter as a gRPC server.
 * Used two ways:
 *  - distributed mode: `node dist/infrastructure/main/main.js connector sandbox` (main.ts -> connector-process-entry.ts,
 *    which looks the slug up here), or directly `node dist/infrastructure/main/connector-process.js sandbox`
 *    with PORT (default 50051) and HOST (default 127.0.0.1);
 *  - embedded mode: the composition root starts each of them in-process on port 0.
 */
import { startSandboxAcquirer } from '../connectors/sandbox/sandbox-acquirer.server';
import { startSandboxAntifraud } from '../connectors/sandbox-antifraud/sandbox-antifraud.server';

export interface StartedAdapter {
  readonly port: number;
  readonly address: string;
  /** The sandbox acquirer's card vault (HTTP), where browsers post card numbers. */
  readonly vaultUrl?: string;
  /** Adapters that report asynchronous outcomes: the CoreNotifications address, once the core serves it. */
  setCoreNotificationsAddress?(address: string): void;
  /** Set when the adapter runs in a worker thread of its own (embedded-adapters.ts). */
  readonly threadId?: number;
  /** Stops accepting calls and lets those in flight finish for up to `graceMs` (the adapter's default when absent). */
  stop(graceMs?: number): Promise<void>;
}

export interface AdapterStartOptions {
  readonly port?: number;
  readonly host?: string;
  /** SANDBOX_FRAUD_REVIEW_DELAY_MS. */
  readonly fraudReviewDelayMs?: number;
  /** CoreNotifications address for asynchronous outcomes, when the core serves one. */
  readonly coreNotificationsAddress?: string;
}

export type ShippedAdapterStarter = (options: AdapterStartOptions) => Promise<StartedAdapter>;

export const SHIPPED_ADAPTERS: Readonly<Record<string, { kind: 'acquirer' | 'antifraud'; start: ShippedAdapterStarter }>> = {
  sandbox: {
    kind: 'acquirer',
    start: (options) =>
      startSandboxAcquirer({
        ...(options.port !== undefined ? { port: options.port } : {}),
        ...(options.host !== undefined ? { host: options.host } : {}),
        ...(options.fraudReviewDelayMs !== undefined ? { fraudReviewDelayMs: options.fraudReviewDelayMs } : {}),
        ...(options.coreNotificationsAddress ? { coreNotificationsAddress: options.coreNotificationsAddress } : {}),
      }),
  },
  'sandbox-antifraud': {
    kind: 'antifraud',
    start: (options) =>
      startSandboxAntifraud({
        ...(options.port !== undefined ? { port: options.port } : {}),
        ...(options.host !== undefined ? { host: options.host } : {}),
      }),
  },
};

/** Adapter settings a separate adapter process takes from its environment (besides PORT and HOST). */
export function adapterOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): Pick<AdapterStartOptions, 'fraudReviewDelayMs' | 'coreNotificationsAddress'> {
  const delay = env['SANDBOX_FRAUD_REVIEW_DELAY_MS'];
  return {
    ...(delay ? { fraudReviewDelayMs: Number(delay) } : {}),
    ...(env['CORE_NOTIFICATIONS_ADDRESS'] ? { coreNotificationsAddress: env['CORE_NOTIFICATIONS_ADDRESS'] } : {}),
  };
}

/** The starter `main.js connector <slug>` uses: port and host from the caller, the rest from the environment. */
export function starterWithEnv(slug: string): (options: { port: number; host: string }) => Promise<StartedAdapter> {
  const adapter = SHIPPED_ADAPTERS[slug];
  if (!adapter) throw new Error(`no adapter named "${slug}"`);
  return (options) => adapter.start({ ...options, ...adapterOptionsFromEnv() });
}

/** SHUTDOWN_GRACE_MS as the core reads it (config.ts): a whole number of milliseconds, 25000 when unset. */
export function shutdownGraceMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SHUTDOWN_GRACE_MS;
  if (raw === undefined || raw === '') return 25_000;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`SHUTDOWN_GRACE_MS must be a whole number of milliseconds, got "${raw}"`);
    process.exit(1);
  }
  return value;
}

/** Runs one shipped adapter until SIGINT/SIGTERM. */
export async function runShippedAdapter(slug: string, env: NodeJS.ProcessEnv = process.env): Promise<StartedAdapter> {
  const adapter = SHIPPED_ADAPTERS[slug];
  if (!adapter) throw new Error(`no adapter named "${slug}"; known: ${Object.keys(SHIPPED_ADAPTERS).join(', ')}`);
  return adapter.start({
    port: Number(env['PORT'] ?? 50051),
    host: env['HOST'] ?? '127.0.0.1',
    ...adapterOptionsFromEnv(env),
  });
}

if (require.main === module) {
  const slug = process.argv[2] ?? 'sandbox';
  runShippedAdapter(slug).then(
    (adapter) => {
      console.log(
        JSON.stringify({ level: 'info', msg: 'connector adapter listening', slug, address: adapter.address, ...(adapter.vaultUrl ? { vaultUrl: adapter.vaultUrl } : {}) }),
      );
      // The drain (contract.md 8): calls in flight finish for up to SHUTDOWN_GRACE_MS, then the process exits 0.
      const graceMs = shutdownGraceMs();
      const stop = () => void adapter.stop(graceMs).then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(2);
    },
  );
}
