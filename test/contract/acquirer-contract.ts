import chai, { expect } from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import type { AcquirerGateway, AuthorizeOutput, PaymentSource } from '../../domain/ports/acquirer-gateway';
import type { ConnectorCredentials } from '../../domain/ports/connector-description';
import { ConnectorFailure } from '../../domain/shared/connector-failure';
import { deadlineMetadata } from '../../infrastructure/grpc/call-deadline';
import { AcquirerConnectorClient, AuthorizeRequest, CaptureRequest } from '../../infrastructure/grpc/generated/connector/v1/connector';
import { callUnary, createGrpcClient } from '../../infrastructure/grpc/grpc-client';
import { toProtoCredentials } from '../../infrastructure/grpc/grpc-connector.mapping';

/**
 * The contract every acquirer adapter must pass, one `describe` per RPC, run through the core's AcquirerGateway
 * (so over real gRPC when the gateway is GrpcAcquirerGateway). An adapter supplies a fixture: its working
 * credentials, credentials its partner refuses or cannot reach, and test tokens for each outcome.
 */
export interface AcquirerContractFixture {
  readonly gateway: AcquirerGateway;
  /** The adapter's gRPC address, for calls the core's gateway never makes (one already past its deadline). */
  readonly address: string;
  readonly credentials: ConnectorCredentials;
  readonly invalidCredentials: ConnectorCredentials;
  readonly unreachableCredentials: ConnectorCredentials;
  readonly tokens: {
    readonly approved: string;
    /** Each decline token and the raw code the acquirer answers for it. */
    readonly declines: ReadonlyArray<{ readonly token: string; readonly rawCode: string }>;
    readonly processingError: string;
    readonly timeout: string;
  };
  /** Releases what the fixture started (servers, clients). */
  teardown(): Promise<void>;
}

chai.use(chaiAsPromised);

const card = (token: string): PaymentSource => ({ type: 'card', token, brand: 'visa', last4: '1111', expMonth: 12, expYear: 2030 });
const key = () => `att_${randomUUID()}`;

function approvedOrFail(result: AuthorizeOutput): Extract<AuthorizeOutput, { status: 'approved' }> {
  if (result.status !== 'approved') expect.fail(`expected approved, got ${JSON.stringify(result)}`);
  return result;
}

export function runAcquirerContract(adapterName: string, setup: () => Promise<AcquirerContractFixture>): void {
  describe(`AcquirerConnector contract: ${adapterName}`, () => {
    let f: AcquirerContractFixture;

    before(async () => {
      f = await setup();
    });

    after(async () => {
      await f?.teardown();
    });

    const authorize = (token: string, amount: number, capture = false, idempotencyKey = key()) =>
      f.gateway.authorize({
        credentials: f.credentials,
        idempotencyKey,
        paymentId: `pay_${randomUUID()}`,
        source: card(token),
        amount,
        currency: 'BRL',
        capture,
      });

    describe('Describe', () => {
      it('describes an available acquirer with JSON Schemas whose secret fields are marked x-secret', async () => {
        const description = await f.gateway.describe();
        expect(description.slug).to.match(/^[a-z0-9-]+$/);
        expect(description.kind).to.equal('acquirer');
        expect(description.available).to.equal(true);
        expect(description.capabilities).to.include('card');
        expect(description.credentialSchema).to.include.keys('properties');
        expect(description.configSchema).to.be.an('object');
        const secretFields = Object.values(description.credentialSchema.properties ?? {}).filter((p) => p['x-secret'] === true);
        expect(secretFields.length, 'at least one secret credential field').to.be.greaterThan(0);
      });
    });

    describe('VerifyCredentials', () => {
      it('answers valid for working credentials', async () => {
        expect((await f.gateway.verifyCredentials({ credentials: f.credentials })).result).to.equal('valid');
      });
      it('answers invalid (not an error) for credentials the partner refuses', async () => {
        expect((await f.gateway.verifyCredentials({ credentials: f.invalidCredentials })).result).to.equal('invalid');
      });
      it('answers unreachable (not an error) when the partner cannot be contacted', async () => {
        expect((await f.gateway.verifyCredentials({ credentials: f.unreachableCredentials })).result).to.equal('unreachable');
      });
    });

    describe('Authorize', () => {
      it('approves with acquirer references', async () => {
        const result = approvedOrFail(await authorize(f.tokens.approved, 1000));
        expect(result.references.acquirerPaymentId).to.be.a('string').and.not.empty;
        expect(result.capturedAmount).to.equal(0);
        expect(result.fraudReviewPending).to.equal(false);
      });

      it('captures at once when asked to', async () => {
        const result = approvedOrFail(await authorize(f.tokens.approved, 1500, true));
        expect(result.capturedAmount).to.equal(1500);
      });

      it('returns each issuer decline as data with the raw code', async () => {
        for (const decline of f.tokens.declines) {
          const result = await authorize(decline.token, 1000);
          expect(result, decline.token).to.deep.include({ status: 'declined', rawCode: decline.rawCode });
        }
      });

      it('throws a technical ConnectorFailure on a processing error, with the outcome known', async () => {
        const error = await authorize(f.tokens.processingError, 1000).then(
          () => expect.fail('expected a failure'),
          (e: unknown) => e,
        );
        expect(error).to.be.instanceOf(ConnectorFailure);
        expect(error).to.include({ kind: 'technical', outcomeUnknown: false });
      });

      it('throws a timeout ConnectorFailure with outcomeUnknown when no answer arrives in time', async () => {
        const error = await authorize(f.tokens.timeout, 1000).then(
          () => expect.fail('expected a timeout'),
          (e: unknown) => e,
        );
        expect(error).to.be.instanceOf(ConnectorFailure);
        expect(error).to.include({ kind: 'timeout', outcomeUnknown: true, nothingSent: false });
      });

      it('acts once per idempotency key: a retry returns the first answer', async () => {
        const idempotencyKey = key();
        const first = approvedOrFail(await authorize(f.tokens.approved, 1000, false, idempotencyKey));
        const again = approvedOrFail(await authorize(f.tokens.approved, 1000, false, idempotencyKey));
        expect(again.references).to.deep.equal(first.references);
      });

      it('fails technically when the partner refuses the credentials', async () => {
        const attempt = f.gateway.authorize({
          credentials: f.invalidCredentials,
          idempotencyKey: key(),
          paymentId: 'pay_contract',
          source: card(f.tokens.approved),
          amount: 1000,
          currency: 'BRL',
          capture: false,
        });
        await expect(attempt).to.be.rejectedWith(ConnectorFailure);
      });
    });

    describe('Capture', () => {
      it('captures part of an authorization and refuses a second capture', async () => {
        const auth = approvedOrFail(await authorize(f.tokens.approved, 1000));
        const id = auth.references.acquirerPaymentId;
        const partial = await f.gateway.capture({ credentials: f.credentials, idempotencyKey: key(), acquirerPaymentId: id, amount: 600 });
        expect(partial).to.include({ status: 'approved', amount: 600 });
        const second = await f.gateway.capture({ credentials: f.credentials, idempotencyKey: key(), acquirerPaymentId: id, amount: 400 });
        expect(second.status).to.equal('declined');
      });

      it('declines a capture above the authorized amount as data', async () => {
        const auth = approvedOrFail(await authorize(f.tokens.approved, 1000));
        const result = await f.gateway.capture({
          credentials: f.credentials,
          idempotencyKey: key(),
          acquirerPaymentId: auth.references.acquirerPaymentId,
          amount: 1001,
        });
        expect(result.status).to.equal('declined');
        if (result.status === 'declined') expect(result.rawCode).to.be.a('string').and.not.empty;
      });

      it('replays the first answer for a repeated idempotency key', async () => {
        const auth = approvedOrFail(await authorize(f.tokens.approved, 1000));
        const input = { credentials: f.credentials, idempotencyKey: key(), acquirerPaymentId: auth.references.acquirerPaymentId, amount: 1000 };
        const first = await f.gateway.capture(input);
        const again = await f.gateway.capture(input);
        expect(first.status).to.equal('approved');
        expect(again).to.deep.equal(first);
      });
    });

    describe('Void', () => {
      it('voids an authorization, and a repeated key replays the void', async () => {
        const auth = approvedOrFail(await authorize(f.tokens.approved, 1000));
        const input = { credentials: f.credentials, idempotencyKey: key(), acquirerPaymentId: auth.references.acquirerPaymentId };
        const first = await f.gateway.void(input);
        expect(first.status).to.equal('approved');
        expect(await f.gateway.void(input)).to.deep.equal(first);
      });

      it('declines voiding a captured payment, or capturing a voided one', async () => {
        const captured = approvedOrFail(await authorize(f.tokens.approved, 1000, true));
        const voidCaptured = await f.gateway.void({
          credentials: f.credentials,
          idempotencyKey: key(),
          acquirerPaymentId: captured.references.acquirerPaymentId,
        });
        expect(voidCaptured.status).to.equal('declined');

        const auth = approvedOrFail(await authorize(f.tokens.approved, 1000));
        const id = auth.references.acquirerPaymentId;
        await f.gateway.void({ credentials: f.credentials, idempotencyKey: key(), acquirerPaymentId: id });
        const captureVoided = await f.gateway.capture({ credentials: f.credentials, idempotencyKey: key(), acquirerPaymentId: id, amount: 1000 });
        expect(captureVoided.status).to.equal('declined');
      });
    });

    describe('Refund', () => {
      it('refunds in parts up to the captured amount and declines beyond it', async () => {
        const auth = approvedOrFail(await authorize(f.tokens.approved, 1000));
        const id = auth.references.acquirerPaymentId;
        await f.gateway.capture({ credentials: f.credentials, idempotencyKey: key(), acquirerPaymentId: id, amount: 800 });
        const refund = (amount: number) => f.gateway.refund({ credentials: f.credentials, idempotencyKey: key(), acquirerPaymentId: id, amount });
        expect(await refund(300)).to.include({ status: 'approved', amount: 300 });
        expect((await refund(600)).status, 'more than remains').to.equal('declined');
        expect(await refund(500)).to.include({ status: 'approved', amount: 500 });
        expect((await refund(1)).status, 'nothing remains').to.equal('declined');
      });

      it('declines refunding an uncaptured authorization', async () => {
        const auth = approvedOrFail(await authorize(f.tokens.approved, 1000));
        const result = await f.gateway.refund({
          credentials: f.credentials,
          idempotencyKey: key(),
          acquirerPaymentId: auth.references.acquirerPaymentId,
          amount: 100,
        });
        expect(result.status).to.equal('declined');
      });

      it('replays a refund for a repeated idempotency key instead of refunding twice', async () => {
        const auth = approvedOrFail(await authorize(f.tokens.approved, 1000, true));
        const input = { credentials: f.credentials, idempotencyKey: key(), acquirerPaymentId: auth.references.acquirerPaymentId, amount: 700 };
        const first = await f.gateway.refund(input);
        expect(await f.gateway.refund(input)).to.deep.equal(first);
        const rest = await f.gateway.refund({ ...input, idempotencyKey: key(), amount: 300 });
        expect(rest).to.include({ status: 'approved', amount: 300 });
      });
    });

    describe('Deadline', () => {
      // How a call looks to an adapter that was frozen (SIGSTOP, a long pause) between the core's send and its read:
      // gRPC's own timeout (grpc-timeout) restarts when the call is read, while the absolute deadline the core sends
      // (connector-deadline-at) has passed. The core has fallen back to another account by then: the adapter must
      // execute nothing and answer DEADLINE_EXCEEDED.
      let client: AcquirerConnectorClient;
      before(() => {
        client = createGrpcClient(AcquirerConnectorClient, f.address);
      });
      after(() => client?.close());
      const lateCall = <Req, Res>(method: Parameters<typeof callUnary<Req, Res>>[1], request: Req) =>
        callUnary(client, method, request, 5_000, deadlineMetadata(new Date(Date.now() - 1_000))).then(
          () => expect.fail('a call past its deadline was executed and answered'),
          (e: { code?: number }) => e,
        );

      it('executes nothing for an Authorize read past its deadline: the attempt is not found, a re-send with its key acts once', async () => {
        const idempotencyKey = key();
        const late = AuthorizeRequest.fromPartial({
          credentials: toProtoCredentials(f.credentials),
          idempotencyKey,
          paymentId: `pay_${randomUUID()}`,
          source: { $case: 'card', card: { token: f.tokens.approved, brand: 'visa', last4: '1111', expMonth: 12, expYear: 2030 } },
          amount: 1000,
          currency: 'BRL',
          capture: true,
        });
        expect((await lateCall(client.authorize, late)).code).to.equal(status.DEADLINE_EXCEEDED);
        expect((await f.gateway.queryCharge({ credentials: f.credentials, idempotencyKey })).status).to.equal('not_found');
        // The refusal was not an answer: the core's reconciliation re-sends the key and the acquirer acts now, once.
        const resent = approvedOrFail(await authorize(f.tokens.approved, 1000, true, idempotencyKey));
        expect(resent.capturedAmount).to.equal(1000);
        expect((await f.gateway.queryCharge({ credentials: f.credentials, idempotencyKey })).status).to.equal('captured');
      });

      it('executes nothing for a Capture read past its deadline: the authorization stays uncaptured', async () => {
        const idempotencyKey = key();
        const auth = approvedOrFail(await authorize(f.tokens.approved, 1000, false, idempotencyKey));
        const late = CaptureRequest.fromPartial({
          credentials: toProtoCredentials(f.credentials),
          idempotencyKey: key(),
          acquirerPaymentId: auth.references.acquirerPaymentId,
          amount: 1000,
        });
        expect((await lateCall(client.capture, late)).code).to.equal(status.DEADLINE_EXCEEDED);
        expect(await f.gateway.queryCharge({ credentials: f.credentials, idempotencyKey })).to.include({ status: 'authorized', paidAmount: 0 });
      });
    });

    describe('ZeroAuth', () => {
      it('validates a good card and declines a bad one with the raw code', async () => {
        expect((await f.gateway.zeroAuth({ credentials: f.credentials, idempotencyKey: key(), source: card(f.tokens.approved) })).status).to.equal(
          'approved',
        );
        const decline = f.tokens.declines[0]!;
        expect(await f.gateway.zeroAuth({ credentials: f.credentials, idempotencyKey: key(), source: card(decline.token) })).to.deep.include({
          status: 'declined',
          rawCode: decline.rawCode,
        });
      });

      it('throws a technical failure on a processing error', async () => {
        await expect(
          f.gateway.zeroAuth({ credentials: f.credentials, idempotencyKey: key(), source: card(f.tokens.processingError) }),
        ).to.be.rejectedWith(ConnectorFailure);
      });
    });
  });
}
