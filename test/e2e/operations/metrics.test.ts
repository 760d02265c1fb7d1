import { expect } from 'chai';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { eventually } from '../../support/eventually';
import { startMetricsServer, type MetricsServer } from '../../../infrastructure/metrics/metrics-server';

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** Prometheus text exposition, one sample per line (comments skipped). */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[name] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

describe('GET /metrics after real payments and webhook deliveries (contract.md 8)', function () {
  this.timeout(90_000);
  let service: TestService;
  let metricsServer: MetricsServer;
  let receiver: WebhookReceiver;
  let merchant: Merchant;
  let downAccount: string;
  let upAccount: string;
  const paymentIds: string[] = [];

  const scrape = async (): Promise<{ text: string; samples: Sample[] }> => {
    const response = await fetch(`${metricsServer.url}/metrics`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    return { text, samples: parseExposition(text) };
  };
  const value = (samples: Sample[], name: string, labels: Record<string, string>): number | undefined =>
    samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

  before(async () => {
    receiver = await new WebhookReceiver().start();
    receiver.answer = (request) => (request.path === '/broken' ? { status: 500, body: 'down' } : { status: 200, body: 'ok' });
    service = await startTestService({ config: { deployment: 'local' } });
    metricsServer = await startMetricsServer(service.core.metrics, { host: '127.0.0.1', port: 0 });
    merchant = await service.merchant('Metrics merchant');
    const account = async (name: string, apiKey: string, costBasisPoints: number) => {
      const r = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name, credentials: { merchantId: `m_${name}`, apiKey }, costBasisPoints });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return r.body.id as string;
    };
    // The cheaper account's acquirer is unreachable: every payment falls back from it to the other one.
    downAccount = await account('down', 'unreachable', 10);
    upAccount = await account('up', 'sk_test', 20);
    for (const path of ['/ok', '/broken']) {
      const r = await merchant.sandbox.post('/v1/webhooks', { url: receiver.url(path), enabledEvents: ['payment.captured', 'payment.failed'] });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
    }
    const card = (scenario: string) => ({ token: `tok_sandbox_${scenario}`, brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030 });
    for (const scenario of ['approved', 'approved', 'insufficient_funds']) {
      const r = await merchant.sandbox.post('/v1/payments', { amount: 1_000, card: card(scenario) });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      paymentIds.push(r.body.id);
    }
    expect((await merchant.sandbox.get(`/v1/payments/${paymentIds[0]}`)).status).to.equal(200);
    expect((await merchant.sandbox.get('/v1/no-such-route/pay_123')).status).to.equal(404);
    // Three events to each endpoint: the healthy one answers them.
    await receiver.waitFor((requests) => requests.filter((r) => r.path === '/ok').length >= 3, 30_000);
  });
  after(async () => {
    await metricsServer?.stop();
    await service?.stop();
    await receiver?.stop();
  });

  it('HTTP requests by route pattern (never the raw path), method and status, with latency histograms', async () => {
    const { samples, text } = await scrape();
    expect(value(samples, 'pos_http_request_duration_seconds_count', { route: '/v1/payments', method: 'POST', status: '201' })).to.equal(3);
    expect(value(samples, 'pos_http_request_duration_seconds_count', { route: '/v1/payments/:id', method: 'GET', status: '200' })).to.equal(1);
    expect(value(samples, 'pos_http_request_duration_seconds_count', { route: 'unmatched', method: 'GET', status: '404' })).to.equal(1);
    expect(value(samples, 'pos_http_request_duration_seconds_bucket', { route: '/v1/payments', method: 'POST', status: '201', le: '+Inf' })).to.equal(3);
    // Bounded labels: no payment, organization or route id anywhere in the text.
    for (const id of [...paymentIds, merchant.organizationId, 'pay_123']) expect(text).to.not.include(id);
  });

  it('payments by method, connector account, outcome and decline reason; fallbacks by the account left', async () => {
    const { samples } = await eventually(async () => {
      const scraped = await scrape();
      return value(scraped.samples, 'pos_payments_total', { outcome: 'declined' }) === 1 ? scraped : null;
    }, 20_000);
    expect(value(samples, 'pos_payments_total', { method: 'card', connector: 'sandbox', account: upAccount, outcome: 'approved', decline_reason: '' })).to.equal(2);
    expect(value(samples, 'pos_payments_total', { method: 'card', connector: 'sandbox', account: upAccount, outcome: 'declined', decline_reason: 'INSUFFICIENT_FUNDS' })).to.equal(1);
    expect(value(samples, 'pos_payment_fallbacks_total', { method: 'card', connector: 'sandbox', account: downAccount })).to.equal(3);
  });

  it('acquirer call latency by connector, account, rpc and gRPC status', async () => {
    const { samples } = await scrape();
    expect(value(samples, 'pos_connector_call_duration_seconds_count', { kind: 'acquirer', connector: 'sandbox', account: upAccount, rpc: 'Authorize', grpc_status: 'OK' })).to.equal(3);
    expect(value(samples, 'pos_connector_call_duration_seconds_count', { kind: 'acquirer', connector: 'sandbox', account: downAccount, rpc: 'Authorize', grpc_status: 'UNAVAILABLE' })).to.equal(3);
  });

  it('webhook attempts by outcome, retries, delivery latency from commit, and endpoints failing (read from the database)', async () => {
    const { samples } = await eventually(async () => {
      const scraped = await scrape();
      return (value(scraped.samples, 'pos_webhook_attempts_total', { outcome: 'failed' }) ?? 0) >= 3 &&
        value(scraped.samples, 'pos_webhook_endpoints', { status: 'failing' }) === 1
        ? scraped
        : null;
    }, 30_000, 500);
    expect(value(samples, 'pos_webhook_attempts_total', { outcome: 'succeeded' })).to.equal(3);
    expect(value(samples, 'pos_webhook_delivery_latency_seconds_count', {})).to.equal(3);
    expect(value(samples, 'pos_webhook_delivery_latency_seconds_sum', {})).to.be.greaterThan(0);
    expect(value(samples, 'pos_webhook_endpoints', { status: 'active' })).to.equal(1);
    expect(value(samples, 'pos_webhook_endpoints', { status: 'disabled' })).to.equal(0);
    expect(value(samples, 'pos_webhook_retries_total', {})).to.be.a('number');
  });

  it('outbox lag, JetStream consumers pending, jobs due, event-loop lag and database pool', async () => {
    const { samples } = await scrape();
    expect(value(samples, 'pos_outbox_lag_seconds', {})).to.be.a('number').and.at.least(0);
    expect(value(samples, 'pos_outbox_unpublished_events', {})).to.be.a('number');
    for (const job of ['flow_run_waits', 'reconciliations', 'expired_routings']) expect(value(samples, 'pos_jobs_due', { job }), job).to.equal(0);
    const consumers = samples.filter((s) => s.name === 'pos_jetstream_consumer_pending');
    expect(consumers.length).to.be.greaterThan(0);
    expect(consumers.every((s) => s.labels.consumer && Number.isFinite(s.value))).to.equal(true);
    expect(value(samples, 'pos_nodejs_eventloop_lag_p99_seconds', {})).to.be.a('number');
    expect(value(samples, 'pos_db_pool_connections', { state: 'used' })).to.be.a('number');
    expect(value(samples, 'pos_db_pool_connections', { state: 'pending' })).to.be.a('number');
  });

  it('is served on its own listener only: the public API port has no /metrics', async () => {
    const api = await fetch(`${service.url}/metrics`);
    expect(api.status).to.equal(404);
    expect(await api.text()).to.not.include('pos_');
    expect((await fetch(`${metricsServer.url}/other`)).status).to.equal(404);
  });
});
