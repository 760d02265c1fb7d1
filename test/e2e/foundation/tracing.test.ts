import { Writable } from 'node:stream';
import { expect } from 'chai';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { SpanKind } from '@opentelemetry/api';
import { startTracing, type Tracing } from '../../../infrastructure/tracing/tracing';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { eventually } from '../../support/eventually';

/** The list when it holds something, else undefined (for `eventually`). */
const nonEmpty = <T>(items: T[]): T[] | undefined => (items.length ? items : undefined);
import type { Clock } from '../../../domain/ports/clock';
import { RETRY_JITTER } from '../../../domain/webhook/retry-policy';

/**
 * contract.md 8, tracing: one payment is one trace, from the edge's request through the gRPC call to the acquirer
 * adapter (whose server span joins it), the commit, the outbox relay's publish over NATS JetStream (traceparent in the
 * message headers), the fan-out consumer and the webhook delivery, a retried one too; log lines carry the trace and span
 * ids.
 */
describe('one payment is one trace (OpenTelemetry, in-memory exporter)', function () {
  this.timeout(60_000);
  const exporter = new InMemorySpanExporter();
  const logs: Array<Record<string, unknown>> = [];
  let tracing: Tracing | null = null;
  let receiver: WebhookReceiver;
  let service: TestService;
  let merchant: Merchant;
  /** Real time moved ahead by hand: a retry (an hour later) comes due when the test says so, without sleeping. */
  let ahead = 0;
  const clock: Clock = { now: () => new Date(Date.now() + ahead) };

  before(async () => {
    tracing = startTracing('payment-orchestration-test', { env: {}, spanProcessors: [new SimpleSpanProcessor(exporter)] });
    receiver = await new WebhookReceiver().start();
    const logDestination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line.startsWith('{')) logs.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    service = await startTestService({
      transport: 'jetstream',
      env: { LOG_LEVEL: 'info' },
      clock,
      config: { deployment: 'local', webhookRetryScheduleSeconds: [3_600, 3_600, 3_600, 3_600, 3_600, 3_600] },
      logDestination,
    });
    merchant = await service.merchant('Traced');
  });

  after(async () => {
    await service?.stop();
    await receiver?.stop();
    await tracing?.shutdown();
  });

  it('joins the edge, the adapter, the commit, the relay, the consumer and the delivery in one trace', async () => {
    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm_trace', apiKey: 'k1' } });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
    const endpoint = await merchant.sandbox.post('/v1/webhooks', { url: receiver.url('/traced'), enabledEvents: ['payment.captured'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(201);

    const created = await merchant.sandbox.post('/v1/payments', { amount: 4_200, card: { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111' } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const paymentId = created.body.id as string;
    await receiver.waitFor((requests) => requests.some((r) => r.rawBody.toString().includes(paymentId)), 30_000);

    const spans = () => exporter.getFinishedSpans();
    const edge = await eventually(
      () => spans().find((s) => s.kind === SpanKind.SERVER && s.attributes['url.path'] === '/v1/payments' && s.attributes['http.request.method'] === 'POST'),
      10_000,
    );
    const traceId = edge.spanContext().traceId;
    const inTrace = (predicate: (span: ReadableSpan) => boolean) => spans().filter((s) => s.spanContext().traceId === traceId && predicate(s));
    const delivery = await eventually(() => inTrace((s) => s.name === 'webhook.deliver')[0], 10_000);

    const client = inTrace((s) => s.kind === SpanKind.CLIENT && s.name === 'grpc /connector.v1.AcquirerConnector/Authorize');
    const server = inTrace((s) => s.kind === SpanKind.SERVER && s.name === 'grpc /connector.v1.AcquirerConnector/Authorize');
    expect(client, 'the gRPC client span').to.have.length(1);
    expect(server, 'the adapter joins through the metadata').to.have.length(1);
    expect(server[0].parentSpanContext?.spanId).to.equal(client[0].spanContext().spanId);
    expect(inTrace((s) => s.name === 'db.commit'), 'the commits').not.to.be.empty;
    // A span is exported when it ends: the consumer's ends after its handler, which may be after the delivery it handed over.
    const publish = await eventually(() => nonEmpty(inTrace((s) => s.kind === SpanKind.PRODUCER && s.name === 'publish payment.captured')), 10_000).catch(() => []);
    const consume = await eventually(() => nonEmpty(inTrace((s) => s.kind === SpanKind.CONSUMER && s.name === 'consume payment.captured')), 10_000).catch(() => []);
    expect(publish, 'the relay continues the outbox row trace').not.to.be.empty;
    expect(consume, 'the consumer continues the NATS header trace').not.to.be.empty;
    expect(consume.some((c) => publish.some((p) => c.parentSpanContext?.spanId === p.spanContext().spanId))).to.equal(true);

    // Every span of the trace leads back to the edge's request.
    const byId = new Map(spans().map((s) => [s.spanContext().spanId, s]));
    const rootOf = (span: ReadableSpan): ReadableSpan => {
      const parent = span.parentSpanContext?.spanId ? byId.get(span.parentSpanContext.spanId) : undefined;
      return parent ? rootOf(parent) : span;
    };
    for (const span of [delivery, server[0], publish[0], consume[0]]) expect(rootOf(span).spanContext().spanId, span.name).to.equal(edge.spanContext().spanId);

    // The request's log lines carry its trace and span ids.
    const requestLine = logs.find((line) => line.trace_id === traceId);
    expect(requestLine, 'a log line with the trace id').to.not.equal(undefined);
    expect(requestLine!.span_id).to.match(/^[0-9a-f]{16}$/);
  });

  it('continues the event\'s trace when a delivery is retried from the queue (a claim)', async () => {
    const retrying = await service.merchant('Traced retry');
    const account = await retrying.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'main', credentials: { merchantId: 'm_trace_retry', apiKey: 'k1' } });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
    const endpoint = await retrying.sandbox.post('/v1/webhooks', { url: receiver.url('/traced-retry'), enabledEvents: ['payment.captured'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(201);
    const previous = receiver.answer;
    receiver.answer = (request) => (request.path === '/traced-retry' && receiver.forPath('/traced-retry').length === 1 ? { status: 500, body: 'not yet' } : previous(request));
    const isPaymentRequest = (s: ReadableSpan) => s.kind === SpanKind.SERVER && s.attributes['url.path'] === '/v1/payments' && s.attributes['http.request.method'] === 'POST';
    const seen = new Set<ReadableSpan>(exporter.getFinishedSpans().filter(isPaymentRequest));
    const paymentRequest = async () => {
      const created = await retrying.sandbox.post('/v1/payments', { amount: 4_300, card: { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111' } });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const edge = await eventually(() => exporter.getFinishedSpans().find((s) => isPaymentRequest(s) && !seen.has(s)));
      seen.add(edge);
      return edge;
    };
    const deliverSpans = () => exporter.getFinishedSpans().filter((s) => s.name === 'webhook.deliver' && s.attributes['webhook.endpoint.id'] === endpoint.body.id);
    try {
      const edge = await paymentRequest();
      // The first attempt (handed over by the fan-out) fails; the retry is due an hour later, so only a claim sends it.
      const [first] = await eventually(() => deliverSpans().length === 1 && deliverSpans(), 30_000);
      expect(first.spanContext().traceId, 'the handed-over attempt is in the payment request\'s trace').to.equal(edge.spanContext().traceId);
      const deliveryId = first.attributes['webhook.delivery.id'];

      // Another payment's delivery meanwhile, handed over and recorded: the worker's later claims are not in its trace.
      const other = await paymentRequest();
      await eventually(() => deliverSpans().some((s) => s.spanContext().traceId === other.spanContext().traceId), 30_000);
      await eventually(async () => (await retrying.sandbox.get(`/v1/webhooks/${endpoint.body.id}/deliveries?status=succeeded`)).body.data.length === 1);

      ahead += 3_600_000 * (1 + RETRY_JITTER) + 1_000; // past the latest the jittered retry can be due
      const attempts = await eventually(() => {
        const spans = deliverSpans().filter((s) => s.attributes['webhook.delivery.id'] === deliveryId);
        return spans.length === 2 && spans;
      }, 10_000);
      expect(receiver.forPath('/traced-retry').map((r) => r.headers['service-delivery-attempt'])).to.deep.equal(['1', '1', '2']);
      expect(attempts[1].spanContext().traceId, 'the retry continues the payment request\'s trace').to.equal(edge.spanContext().traceId);
      expect(attempts[1].parentSpanContext?.spanId, 'the retry has a parent in that trace').to.match(/^[0-9a-f]{16}$/);
    } finally {
      receiver.answer = previous;
    }
  });
});
