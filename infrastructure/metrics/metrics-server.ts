/**
 * The metrics listener (contract.md 8): Prometheus text at `GET /metrics` on METRICS_HOST:METRICS_PORT, its own
 * socket, never the public API port, so a proxy in front of the API cannot expose it by mistake. METRICS_PORT=0
 * turns it off (startConfiguredMetricsServer); tests call startMetricsServer with port 0 for a free port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logging/logger';
import type { ServiceMetrics } from './service-metrics';

export interface MetricsServer {
  /** `http://host:port`. */
  readonly url: string;
  stop(): Promise<void>;
}

export async function startMetricsServer(metrics: ServiceMetrics, listen: { host: string; port: number }, onError?: (error: unknown) => void): Promise<MetricsServer> {
  metrics.collectProcessMetrics();
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: metrics are served at GET /metrics\n');
      return;
    }
    metrics.scrape().then(
      ({ contentType, body }) => response.writeHead(200, { 'Content-Type': contentType }).end(request.method === 'HEAD' ? undefined : body),
      (error: unknown) => {
        onError?.(error);
        response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('metrics could not be collected\n');
      },
    );
  });
  // Scrapers keep connections open; they must not hold the process at shutdown.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The process's listener as configured: null when METRICS_PORT=0, or when the port is taken (another process of the
 * same host serves it: two roles on one machine need a METRICS_PORT each). Metrics are not worth refusing payments
 * for, so that is an error in the log, not a failed start.
 */
export async function startConfiguredMetricsServer(
  metrics: ServiceMetrics,
  config: { readonly metricsHost: string; readonly metricsPort: number },
  logger: Pick<Logger, 'info' | 'warn' | 'error'>,
): Promise<MetricsServer | null> {
  if (config.metricsPort === 0) return null;
  try {
    const server = await startMetricsServer(metrics, { host: config.metricsHost, port: config.metricsPort }, (error) =>
      logger.warn({ err: error }, 'metrics could not be collected'),
    );
    logger.info({ url: `${server.url}/metrics` }, 'metrics served');
    return server;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    logger.error(
      { host: config.metricsHost, port: config.metricsPort },
      'METRICS_PORT is already in use on this host: metrics are not served by this process (give each process on one host its own METRICS_PORT, or 0)',
    );
    return null;
  }
}
