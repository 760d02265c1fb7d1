/**
 * Runs one connector adapter alone (distributed mode): `main.js connector sandbox` or
 * `main.js antifraud sandbox-antifraud`, listening on PORT (default 50051). The adapter modules register
 * their starters in `ADAPTER_STARTERS` below.
 */
import { shutdownGraceMs, starterWithEnv } from './connector-process';
import { processTracing } from '../tracing/process-tracing';
import { ServiceMetrics } from '../metrics/service-metrics';
import { createLogger } from '../logging/logger';
import { startConfiguredMetricsServer, type MetricsServer } from '../metrics/metrics-server';

export type AdapterStarter = (options: { port: number; host: string }) => Promise<{ port: number; stop(graceMs?: number): Promise<void> }>;

export const ADAPTER_STARTERS: Record<string, () => Promise<AdapterStarter>> = {
  sandbox: async () => starterWithEnv('sandbox'),
  'sandbox-antifraud': async () => starterWithEnv('sandbox-antifraud'),
};

export async function runConnectorProcess(slug: string): Promise<void> {
  const load = ADAPTER_STARTERS[slug];
  if (!load) {
    console.error(`no adapter named "${slug}"; known: ${Object.keys(ADAPTER_STARTERS).join(', ') || 'none'}`);
    process.exit(2);
  }
  const start = await load();
  const port = Number(process.env.PORT ?? 50051);
  const host = process.env.HOST ?? '127.0.0.1';
  const adapter = await start({ port, host });
  console.log(JSON.stringify({ level: 'info', msg: 'connector adapter listening', slug, host, port: adapter.port }));
  const metrics = await adapterMetricsServer();
  const graceMs = shutdownGraceMs();
  let stopping = false;
  // The drain (contract.md 8): health answers NOT_SERVING, no new call is accepted, calls in flight finish for up to
  // SHUTDOWN_GRACE_MS (grpc-js tryShutdown), then what is left is cut (forceShutdown) and the process exits 0.
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log(JSON.stringify({ level: 'info', msg: 'shutting down: draining', slug, graceMs }));
    await adapter.stop(graceMs);
    await metrics?.stop();
    await processTracing?.shutdown().catch(() => undefined); // exports the spans still buffered
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

/**
 * An adapter process serves its process metrics (event-loop lag, heap, CPU: contract.md 8, every process) on
 * METRICS_HOST:METRICS_PORT like the core's processes; METRICS_PORT=0 turns it off.
 */
async function adapterMetricsServer(env: NodeJS.ProcessEnv = process.env): Promise<MetricsServer | null> {
  const port = Number(env.METRICS_PORT === undefined || env.METRICS_PORT === '' ? 9464 : env.METRICS_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`METRICS_PORT must be a TCP port (0-65535), got "${env.METRICS_PORT}"`);
    process.exit(1);
  }
  return startConfiguredMetricsServer(new ServiceMetrics(), { metricsHost: env.METRICS_HOST ?? '127.0.0.1', metricsPort: port }, createLogger('info'));
}
