import { Writable } from 'node:stream';
import { expect } from 'chai';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { SpanKind } from '@opentelemetry/api';
import { startTracing, type Tracing } from '../../../infrastructure/tracing/tracing';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { eventually } from '../../support/eventually';

/**
 * contract.md 8, tracing: one payment is one trace, from the edge's request through the gRPC call to the acquirer
 * adapter (whose server span joins it), the commit, the outbox relay's publish over NATS JetStream (traceparent in the
 * message headers), the fan-out consumer and the webhook delivery; log lines carry the trace and span ids.
 */
describe('one payment is one trace (OpenTelemetry, in-memory exporter)', function () {
  this.timeout(60_000);
  const exporter = new InMemorySpanExporter();
  const logs: Array<Record<string, unknown>> = [];
  let tracing: Tracing | null = null;
  let receiver: WebhookReceiver;
  let service: TestService;
  let merchant: Merchant;

  before(async () => {
    tracing = startTracing('payment-orchestration-test', { env: {}, spanProcessors: [new SimpleSpanProcessor(exporter)] });
    receiver = await new WebhookReceiver().start();
    const logDestination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line.startsWith('{')) logs.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    service = await startTestService({ transport: 'jetstream', env: { LOG_LEVEL: 'info' }, config: { deployment: 'local' }, logDestination });
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
    const publish = inTrace((s) => s.kind === SpanKind.PRODUCER && s.name === 'publish payment.captured');
    const consume = inTrace((s) => s.kind === SpanKind.CONSUMER && s.name === 'consume payment.captured');
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
});
