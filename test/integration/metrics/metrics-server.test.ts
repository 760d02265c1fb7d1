import { expect } from 'chai';
import { ServiceMetrics } from '../../../infrastructure/metrics/service-metrics';
import { startConfiguredMetricsServer, startMetricsServer, type MetricsServer } from '../../../infrastructure/metrics/metrics-server';
import { createLogger } from '../../../infrastructure/logging/logger';

describe('the metrics listener (contract.md 8)', () => {
  const servers: MetricsServer[] = [];
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) });
  after(async () => {
    for (const server of servers) await server.stop();
  });

  it('serves Prometheus text at GET /metrics, with process metrics, and nothing else', async () => {
    const server = await startMetricsServer(new ServiceMetrics(), { host: '127.0.0.1', port: 0 });
    servers.push(server);
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/plain/);
    const text = await response.text();
    expect(text).to.include('# TYPE pos_http_request_duration_seconds histogram');
    expect(text).to.match(/^pos_nodejs_eventloop_lag_p99_seconds \d/m);
    expect((await fetch(`${server.url}/`)).status).to.equal(404);
    expect((await fetch(`${server.url}/metrics`, { method: 'POST' })).status).to.equal(404);
  });

  it('METRICS_PORT=0 serves nothing', async () => {
    expect(await startConfiguredMetricsServer(new ServiceMetrics(), { metricsHost: '127.0.0.1', metricsPort: 0 }, logger)).to.equal(null);
  });

  it('a port already taken is an error in the log, not a failed start (payments go on)', async () => {
    const taken = await startMetricsServer(new ServiceMetrics(), { host: '127.0.0.1', port: 0 });
    servers.push(taken);
    const port = Number(new URL(taken.url).port);
    const second = await startConfiguredMetricsServer(new ServiceMetrics(), { metricsHost: '127.0.0.1', metricsPort: port }, logger);
    expect(second).to.equal(null);
    expect(lines.some((line) => line.level === 'error' && /METRICS_PORT is already in use/.test(String(line.msg)) && line.port === port)).to.equal(true);
  });
});
