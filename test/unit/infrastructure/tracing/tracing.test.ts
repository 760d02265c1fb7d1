import { expect } from 'chai';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { eventually } from '../../../support/eventually';
import { detached, inSpan, startTracing, type Tracing } from '../../../../infrastructure/tracing/tracing';

/** A timer armed inside a span runs in that span's context unless armed `detached` (the webhook worker's poll loop). */
describe('tracing: detached work', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing | null = null;

  before(() => {
    tracing = startTracing('tracing-unit-test', { env: {}, spanProcessors: [new SimpleSpanProcessor(exporter)] });
  });
  after(async () => {
    await tracing?.shutdown();
  });
  beforeEach(() => exporter.reset());

  /** Arms a timer inside a span (through `arm`) and returns the request span and the span the timer then starts. */
  async function timerArmedInRequest(arm: (fn: () => NodeJS.Timeout) => NodeJS.Timeout) {
    let fired!: Promise<void>;
    await inSpan('request', {}, async () => {
      fired = new Promise<void>((resolve) => {
        arm(() => setTimeout(() => void inSpan('later', {}, async () => undefined).then(resolve), 0));
      });
    });
    await fired;
    // The processor hands finished spans to the exporter asynchronously.
    const byName = (name: string) => eventually(() => exporter.getFinishedSpans().find((s) => s.name === name), 2_000, 5);
    return { request: await byName('request'), later: await byName('later') };
  }

  it('runs a timer armed inside a span outside any trace', async () => {
    const { request, later } = await timerArmedInRequest((fn) => detached(fn));
    expect(later.parentSpanContext?.spanId).to.equal(undefined);
    expect(later.spanContext().traceId).not.to.equal(request.spanContext().traceId);
  });

  it('(the reason) a timer armed plainly inside a span stays in its trace', async () => {
    const { request, later } = await timerArmedInRequest((fn) => fn());
    expect(later.spanContext().traceId).to.equal(request.spanContext().traceId);
  });
});
