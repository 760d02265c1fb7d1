/**
 * Micro-benchmark of what metrics add to a request and to a payment (`npx tsx bench/metrics-hot-path.ts`): the
 * edge's per-request observation (cached series: no label object, no key string) against prom-client's plain
 * `observe(labels, value)`, and the relay's per-event outcome count. Numbers are per call, on this machine.
 */
import { ServiceMetrics } from '../infrastructure/metrics/service-metrics';
import type { StoredEvent } from '../domain/ports/event-outbox';

const ROUTES = ['/v1/payments', '/v1/payments/:id', '/v1/payments/:id/capture', '/v1/refunds', '/v1/webhooks'];

function measure(name: string, iterations: number, run: (i: number) => void): void {
  for (let i = 0; i < iterations / 10; i++) run(i); // warm-up: let V8 optimize first
  const heapBefore = process.memoryUsage().heapUsed;
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) run(i);
  const ns = Number(process.hrtime.bigint() - started) / iterations;
  const heapPerCall = (process.memoryUsage().heapUsed - heapBefore) / iterations;
  console.log(`${name.padEnd(52)} ${ns.toFixed(0).padStart(6)} ns/call  ~${Math.max(0, heapPerCall).toFixed(0)} B/call retained-or-garbage`);
}

const metrics = new ServiceMetrics();
const N = 1_000_000;
measure('edge observeRequest (cached series)', N, (i) => metrics.observeRequest(ROUTES[i % 5], 'POST', 201, 0.004));
measure('prom-client histogram.observe(labels, value)', N, (i) =>
  metrics.httpRequestDuration.observe({ route: ROUTES[i % 5], method: 'POST', status: '201' }, 0.004),
);
const event: StoredEvent = {
  id: 'evt_01JDZ7W0000000000000000000',
  type: 'payment.captured',
  apiVersion: '2026-01-01',
  createdAt: new Date().toISOString(),
  environment: 'sandbox',
  sequence: 1,
  organizationId: 'org_1',
  data: { object: { methodType: 'card', connector: 'sandbox', connectorAccountId: 'ca_1', attempts: [{}] }, previousAttributes: { status: 'processing' } },
};
const batch = [event];
measure('relay observePublished (one payment event)', N / 4, () => metrics.observePublished(batch));
