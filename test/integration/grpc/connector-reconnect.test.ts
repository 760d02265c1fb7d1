import { expect } from 'chai';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { GrpcAcquirerGateway } from '../../../infrastructure/grpc/grpc-acquirer.gateway';
import { AcquirerConnectorService, Outcome, type AuthorizeRequest, type AuthorizeResponse } from '../../../infrastructure/grpc/generated/connector/v1/connector';
import { unaryHandler, startGrpcServer, type RunningGrpcServer } from '../../../infrastructure/grpc/grpc-server';
import { grpcError } from '../../../infrastructure/grpc/grpc-errors';
import { ConnectorFailure } from '../../../domain/shared/connector-failure';
import type { AuthorizeInput } from '../../../domain/ports/acquirer-gateway';

/**
 * A connector adapter that goes away and comes back on the same port. grpc-js backs a failed channel off (1 s, growing
 * to 120 s by default) and fails calls at once meanwhile, so payments failed for seconds after the adapter was back.
 */
describe('gRPC connector channel: reconnects at once when a call needs it', function () {
  this.timeout(30_000);
  const received: string[] = [];
  /** What the adapter does with an authorization: approve, or hold it (to drop the connection mid-call). */
  let behaviour: 'approve' | 'hang' = 'approve';
  let server: RunningGrpcServer | null = null;
  let port = 0;
  let gateway: GrpcAcquirerGateway;

  const startAdapter = async () => {
    server = await startGrpcServer({
      port,
      services: [
        {
          definition: AcquirerConnectorService,
          implementation: {
            authorize: unaryHandler<AuthorizeRequest, AuthorizeResponse>(async (request) => {
              received.push(request.idempotencyKey);
              if (behaviour === 'hang') return new Promise<AuthorizeResponse>(() => undefined);
              return { outcome: Outcome.APPROVED, rawCode: '00', message: 'approved', fraudReviewPending: false, capturedAmount: 0, references: { acquirerPaymentId: `acq_${request.idempotencyKey}`, nsu: '', tid: '', authorizationCode: '' } };
            }),
            describe: unaryHandler(async () => Promise.reject(grpcError(GrpcStatus.UNIMPLEMENTED, 'not here'))),
          },
        },
      ],
    });
    port = server.port;
  };
  const stopAdapter = async () => {
    await server?.stop(0);
    server = null;
  };

  const authorization = (key: string): AuthorizeInput => ({
    credentials: { values: { merchantId: 'm', apiKey: 'k' }, config: {} },
    idempotencyKey: key,
    paymentId: `pay_${key}`,
    source: { type: 'card', token: 'tok_sandbox_approved', brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030 },
    amount: 1_000,
    currency: 'BRL',
    capture: false,
  });

  /**
   * The adapter is down: calls fail (the first may meet the closing server's refusal, later ones a refused
   * connection) and the channel's reconnect back-off grows with each failed connection.
   */
  const failWhileDown = async (forMs: number) => {
    const until = Date.now() + forMs;
    let attempt = 0;
    while (Date.now() < until) {
      const error = await gateway.authorize(authorization(`down_${(attempt += 1)}`)).then(() => null, (e: unknown) => e);
      expect(error).to.be.instanceOf(ConnectorFailure);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(received.filter((key) => key.startsWith('down_'))).to.deep.equal([]);
  };

  before(async () => {
    await startAdapter();
    gateway = new GrpcAcquirerGateway(`127.0.0.1:${port}`, { deadlineMs: 3_000, slug: 'flaky' });
  });
  after(async () => {
    gateway?.close();
    await stopAdapter();
  });

  it('approves the first authorization after the adapter is back, within a few hundred ms, sent once', async () => {
    expect((await gateway.authorize(authorization('before'))).status).to.equal('approved');
    await stopAdapter();
    await failWhileDown(2_500);

    await startAdapter();
    const startedAt = Date.now();
    const result = await gateway.authorize(authorization('first_after'));
    const elapsedMs = Date.now() - startedAt;
    expect(result.status).to.equal('approved');
    // Was an immediate UNAVAILABLE for the rest of a back-off of 1.6 s and more; generous for a busy machine.
    expect(elapsedMs, `answered in ${elapsedMs} ms`).to.be.below(1_500);
    expect(received.filter((key) => key === 'first_after')).to.have.length(1);
  });

  it('still fails fast with nothing sent while the adapter stays down (a bounded wait, then the original error)', async () => {
    await stopAdapter();
    await failWhileDown(1_000);
    const startedAt = Date.now();
    const error = await gateway.authorize(authorization('still_down')).then(() => null, (e: unknown) => e);
    const elapsedMs = Date.now() - startedAt;
    expect(error).to.be.instanceOf(ConnectorFailure);
    expect((error as ConnectorFailure).nothingSent).to.equal(true);
    expect((error as ConnectorFailure).message).to.match(/UNAVAILABLE/);
    expect(elapsedMs, `failed in ${elapsedMs} ms`).to.be.below(1_500);
    await startAdapter();
  });

  it('never repeats a call that reached the adapter: the adapter going away mid-call is a failure, sent once', async () => {
    expect((await gateway.authorize(authorization('warm'))).status).to.equal('approved');
    behaviour = 'hang';
    try {
      const pending = gateway.authorize(authorization('mid_call')).then(() => null, (e: unknown) => e);
      while (!received.includes('mid_call')) await new Promise((resolve) => setTimeout(resolve, 10));
      await stopAdapter();
      const error = await pending;
      expect(error).to.be.instanceOf(ConnectorFailure);
      expect((error as ConnectorFailure).nothingSent, String(error)).to.equal(false);
    } finally {
      behaviour = 'approve';
      await startAdapter();
    }
    expect(received.filter((key) => key === 'mid_call')).to.have.length(1);
  });
});
