import { expect } from 'chai';
import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { startGrpcServer, type RunningGrpcServer } from '../../../infrastructure/grpc/grpc-server';
import { callUnary, createGrpcClient, waitForReady } from '../../../infrastructure/grpc/grpc-client';
import { classifyGrpcError } from '../../../infrastructure/grpc/grpc-errors';
import { checkGrpcHealth } from '../../../infrastructure/grpc/grpc-health.client';
import {
  EchoClient,
  EchoService,
  type EchoRequest,
  type EchoResponse,
  type EchoServer,
} from '../../../infrastructure/grpc/generated/diagnostics/v1/echo';

describe('gRPC plumbing (Echo over loopback)', () => {
  let running: RunningGrpcServer;
  let client: EchoClient;
  const pendingTimers = new Set<NodeJS.Timeout>();

  const echo: EchoServer = {
    echo(call, callback) {
      const timer = setTimeout(() => {
        pendingTimers.delete(timer);
        callback(null, { message: call.request.message });
      }, call.request.delayMs);
      pendingTimers.add(timer);
    },
  };

  before(async () => {
    running = await startGrpcServer({ services: [{ definition: EchoService, implementation: echo }] });
    client = createGrpcClient(EchoClient, running.address);
    await waitForReady(client, 2_000);
  });

  after(async () => {
    client.close();
    for (const timer of pendingTimers) clearTimeout(timer);
    await running.stop(500);
  });

  it('binds port 0 to a real loopback port and echoes', async () => {
    expect(running.port).to.be.greaterThan(0);
    const response = await callUnary<EchoRequest, EchoResponse>(client, client.echo, { message: 'ping', delayMs: 0 }, 2_000);
    expect(response.message).to.equal('ping');
  });

  it('answers the standard health check with SERVING for the server and the service', async () => {
    expect(await checkGrpcHealth(running.address)).to.equal('SERVING');
    expect(await checkGrpcHealth(running.address, 'diagnostics.v1.Echo')).to.equal('SERVING');
  });

  it('labels a deadline that expires after sending as outcomeUnknown (and retryable)', async () => {
    const error: ServiceError = await callUnary<EchoRequest, EchoResponse>(
      client,
      client.echo,
      { message: 'slow', delayMs: 1_000 },
      100,
    ).then(
      () => expect.fail('expected DEADLINE_EXCEEDED'),
      (e: ServiceError) => e,
    );
    expect(error.code).to.equal(GrpcStatus.DEADLINE_EXCEEDED);
    const classified = classifyGrpcError(error);
    expect([...classified.labels]).to.have.members(['outcomeUnknown', 'retryable']);
  });

  it('labels a call to a closed port as nothingSent, never outcomeUnknown', async () => {
    const spare = await startGrpcServer({ services: [] });
    const deadAddress = spare.address;
    await spare.stop(0);
    const deadClient = createGrpcClient(EchoClient, deadAddress);
    try {
      const error: ServiceError = await callUnary<EchoRequest, EchoResponse>(
        deadClient,
        deadClient.echo,
        { message: 'x', delayMs: 0 },
        1_000,
      ).then(
        () => expect.fail('expected a failure'),
        (e: ServiceError) => e,
      );
      const classified = classifyGrpcError(error);
      expect(classified.labels.has('nothingSent'), `${classified.codeName}: ${classified.details}`).to.equal(true);
      expect(classified.labels.has('outcomeUnknown')).to.equal(false);
    } finally {
      deadClient.close();
    }
  });
});
