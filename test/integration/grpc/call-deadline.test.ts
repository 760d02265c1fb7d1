import { expect } from 'chai';
import { Metadata, status } from '@grpc/grpc-js';
import { DEADLINE_AT_METADATA_KEY, assertWithinDeadline, callDeadlineMs, deadlineMetadata } from '../../../infrastructure/grpc/call-deadline';
import { AntifraudConnectorClient, AnalyzeRequest } from '../../../infrastructure/grpc/generated/antifraud/v1/antifraud';
import { callUnary, createGrpcClient } from '../../../infrastructure/grpc/grpc-client';
import { startSandboxAntifraud } from '../../../infrastructure/connectors/sandbox-antifraud/sandbox-antifraud.server';

const NOW = Date.parse('2026-07-01T09:00:00.000Z');

/** The parts of a server call the helper reads. */
function call(options: { grpcDeadline?: number | Date; deadlineAt?: string[]; cancelled?: boolean }) {
  const metadata = new Metadata();
  for (const value of options.deadlineAt ?? []) metadata.add(DEADLINE_AT_METADATA_KEY, value);
  return { getDeadline: () => options.grpcDeadline ?? Infinity, metadata, cancelled: options.cancelled ?? false };
}

const codeOf = (run: () => void): number | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as { code?: number }).code;
  }
};

describe('call deadline helper for adapters (infrastructure/grpc/call-deadline.ts)', () => {
  it('is the earlier of the gRPC deadline and connector-deadline-at; Infinity when the caller set neither', () => {
    expect(callDeadlineMs(call({}))).to.equal(Infinity);
    expect(callDeadlineMs(call({ grpcDeadline: NOW + 500 }))).to.equal(NOW + 500);
    expect(callDeadlineMs(call({ grpcDeadline: new Date(NOW + 500) }))).to.equal(NOW + 500);
    expect(callDeadlineMs(call({ grpcDeadline: NOW + 500, deadlineAt: ['2026-07-01T09:00:00.300Z'] }))).to.equal(NOW + 300);
    expect(callDeadlineMs(call({ grpcDeadline: NOW + 500, deadlineAt: ['2026-07-01T09:00:01Z'] }))).to.equal(NOW + 500);
  });

  it('refuses (DEADLINE_EXCEEDED) a call whose gRPC deadline or absolute deadline has passed, or that was cancelled', () => {
    expect(codeOf(() => assertWithinDeadline(call({ grpcDeadline: NOW + 1 }), NOW))).to.equal(undefined);
    expect(codeOf(() => assertWithinDeadline(call({}), NOW))).to.equal(undefined);
    expect(codeOf(() => assertWithinDeadline(call({ grpcDeadline: NOW }), NOW))).to.equal(status.DEADLINE_EXCEEDED);
    // Frozen before reading the call: gRPC's timeout restarted on reading, the core's absolute deadline passed.
    expect(codeOf(() => assertWithinDeadline(call({ grpcDeadline: NOW + 5_000, deadlineAt: ['2026-07-01T08:59:59.999Z'] }), NOW))).to.equal(
      status.DEADLINE_EXCEEDED,
    );
    expect(codeOf(() => assertWithinDeadline(call({ grpcDeadline: NOW + 5_000, cancelled: true }), NOW))).to.equal(status.DEADLINE_EXCEEDED);
  });

  it('refuses (INVALID_ARGUMENT) a connector-deadline-at that is not one ISO 8601 UTC time, instead of ignoring it', () => {
    for (const bad of [['tomorrow'], ['2026-07-01'], ['2026-07-01T09:00:00+01:00'], ['1782896400000'], ['2026-07-01T09:00:00Z', '2026-07-01T09:00:01Z']]) {
      expect(codeOf(() => assertWithinDeadline(call({ grpcDeadline: NOW + 5_000, deadlineAt: bad }), NOW)), bad.join()).to.equal(status.INVALID_ARGUMENT);
    }
  });

  it('deadlineMetadata writes the absolute deadline the helper reads back', () => {
    const metadata = deadlineMetadata(new Date(NOW + 250));
    expect(callDeadlineMs({ getDeadline: () => Infinity, metadata, cancelled: false })).to.equal(NOW + 250);
  });

  it('the sandbox antifraud adapter answers DEADLINE_EXCEEDED to an Analyze read past its deadline', async () => {
    const server = await startSandboxAntifraud();
    const client = createGrpcClient(AntifraudConnectorClient, server.address);
    try {
      const request = AnalyzeRequest.fromPartial({
        credentials: { secrets: { merchantId: 'm_deadline', apiKey: 'sk_test' }, configJson: '{}' },
        idempotencyKey: 'att_late',
        paymentId: 'pay_late',
        amount: 100,
        currency: 'BRL',
      });
      const late = await callUnary(client, client.analyze, request, 5_000, deadlineMetadata(new Date(Date.now() - 1_000))).catch((e: { code?: number }) => e);
      expect(late).to.have.property('code', status.DEADLINE_EXCEEDED);
      const onTime = await callUnary(client, client.analyze, request, 5_000, deadlineMetadata(new Date(Date.now() + 5_000)));
      expect(onTime.analysisId).to.be.a('string').and.not.empty;
    } finally {
      client.close();
      await server.stop();
    }
  });
});
