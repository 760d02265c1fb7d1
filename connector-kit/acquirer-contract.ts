import chai, { expect } from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { randomUUID } from 'node:crypto';
import { Metadata, status } from '@grpc/grpc-js';
import type { AuthorizeOutput, PaymentSource } from '../domain/ports/acquirer-gateway';
import type { ConnectorCredentials } from '../domain/ports/connector-description';
import { ConnectorFailure } from '../domain/shared/connector-failure';
import { DEADLINE_AT_METADATA_KEY, deadlineMetadata } from '../infrastructure/grpc/call-deadline';
import {
  AcquirerConnectorClient,
  AuthorizeRequest,
  CaptureRequest,
  CreatePixChargeRequest,
} from '../infrastructure/grpc/generated/connector/v1/connector';
import { GrpcAcquirerGateway } from '../infrastructure/grpc/grpc-acquirer.gateway';
import { callUnary, createGrpcClient } from '../infrastructure/grpc/grpc-client';
import { toProtoCredentials } from '../infrastructure/grpc/grpc-connector.mapping';
import { checkGrpcHealth } from '../infrastructure/grpc/grpc-health.client';
import type { ConnectorContractFixture, FixtureCredentials } from './contract-fixture';
import { boletoProblems, brCodeProblems } from './payment-code-checks';

/**
 * The contract every acquirer adapter must pass, one `describe` per RPC, each capability's cases only when the
 * adapter declares it. Calls go through the core's own gateway (GrpcAcquirerGateway) over real gRPC, so the adapter
 * is judged exactly as the core will read it; a raw client makes the calls the core never makes (already past their
 * deadline, malformed). Used by the in-repo contract tests and by the partner runner (run-connector-contract.ts).
 */
export interface AcquirerContractTarget {
  /** The adapter's gRPC address, host:port. */
  readonly address: string;
  /** Releases what the setup started (an in-process adapter); the suite closes its own clients. */
  teardown?(): Promise<void>;
}

/** The RPCs of connector.v1.AcquirerConnector, as the describe titles of this suite start. */
export const ACQUIRER_RPCS = [
  'Describe',
  'VerifyCredentials',
  'Authorize',
  'Capture',
  'Void',
  'Refund',
  'ZeroAuth',
  'CreatePixCharge',
  'CreateBoleto',
  'QueryCharge',
  'CancelCharge',
  'CreateTokenizationSession',
  'Authenticate3ds',
] as const;

chai.use(chaiAsPromised);

const key = () => `att_${randomUUID()}`;
const paymentId = () => `pay_${randomUUID()}`;
const card = (token: string): Extract<PaymentSource, { type: 'card' }> => ({
  type: 'card',
  token,
  brand: 'visa',
  last4: '1111',
  expMonth: 12,
  expYear: 2030,
});
const protoCard = (token: string) => ({ $case: 'card' as const, card: { token, brand: 'visa', last4: '1111', expMonth: 12, expYear: 2030 } });

function toGatewayCredentials(credentials: FixtureCredentials): ConnectorCredentials {
  return { values: { ...credentials.secrets }, config: { ...(credentials.config ?? {}) } };
}

function approvedOrFail(result: AuthorizeOutput): Extract<AuthorizeOutput, { status: 'approved' }> {
  if (result.status !== 'approved') expect.fail(`expected approved, got ${JSON.stringify(result)}`);
  return result;
}

/** Rejection of `promise`, or a failed assertion when it resolved. */
function failureOf(promise: Promise<unknown>, expectation: string): Promise<{ code?: number; details?: string }> {
  return promise.then(
    () => expect.fail(expectation),
    (error: { code?: number; details?: string }) => error,
  );
}

/**
 * Defines the contract suite (mocha `describe`/`it` must be in scope). `capabilities` are those to test, known
 * when the suite is defined (the fixture's, or what the runner read from Describe first); the Describe case checks
 * the adapter declares exactly these.
 */
export function defineAcquirerContract(
  adapterName: string,
  fixture: ConnectorContractFixture,
  capabilities: readonly string[],
  start: () => Promise<AcquirerContractTarget>,
): void {
  const declared = new Set(capabilities);
  const cards = declared.has('card') || declared.has('debit_card');
  const credentials = toGatewayCredentials(fixture.credentials);
  const invalidCredentials = toGatewayCredentials(fixture.invalidCredentials);
  const unreachableCredentials = toGatewayCredentials(fixture.unreachableCredentials);
  const tokens = fixture.tokens;

  describe(`AcquirerConnector contract: ${adapterName}`, () => {
    let target: AcquirerContractTarget;
    let gateway: GrpcAcquirerGateway;
    /** Same gateway with the short deadline the timeout token must outlast. */
    let impatientGateway: GrpcAcquirerGateway;
    /** For calls the core never makes: already past their deadline, or with malformed metadata. */
    let client: AcquirerConnectorClient;

    before(async () => {
      target = await start();
      gateway = new GrpcAcquirerGateway(target.address, { deadlineMs: fixture.deadlineMs ?? 5_000 });
      impatientGateway = new GrpcAcquirerGateway(target.address, { deadlineMs: fixture.timeoutDeadlineMs ?? 1_000 });
      client = createGrpcClient(AcquirerConnectorClient, target.address);
    });

    after(async () => {
      gateway?.close();
      impatientGateway?.close();
      client?.close();
      await target?.teardown?.();
    });

    const authorize = (token: string, amount: number, capture = false, idempotencyKey = key()) =>
      gateway.authorize({ credentials, idempotencyKey, paymentId: paymentId(), source: card(token), amount, currency: 'BRL', capture });

    /** A raw call whose connector-deadline-at passed a second ago, as a frozen adapter reads it. */
    const lateCall = <Req, Res>(method: Parameters<typeof callUnary<Req, Res>>[1], request: Req) =>
      failureOf(
        callUnary(client, method, request, 5_000, deadlineMetadata(new Date(Date.now() - 1_000))),
        'a call past its deadline was executed and answered',
      );

    describe('grpc.health.v1 (the core reads readiness from it)', () => {
      it('answers SERVING for the whole server (service "")', async () => {
        const health = await checkGrpcHealth(target.address, '', fixture.deadlineMs ?? 5_000).catch((error: { code?: number; details?: string }) =>
          expect.fail(`grpc.health.v1.Health/Check failed (${error.code === status.UNIMPLEMENTED ? 'UNIMPLEMENTED: the adapter does not serve the health service' : error.details})`),
        );
        expect(health).to.equal('SERVING');
      });
    });

    describe('Describe', () => {
      it('describes an available acquirer with JSON Schemas whose secret fields are marked x-secret', async () => {
        const description = await gateway.describe();
        expect(description.slug).to.match(/^[a-z0-9-]+$/);
        expect(description.name).to.be.a('string').and.not.empty;
        expect(description.kind).to.equal('acquirer');
        expect(description.available).to.equal(true);
        expect(description.credentialSchema).to.include.keys('properties');
        expect(description.configSchema).to.be.an('object');
        const secretFields = Object.values(description.credentialSchema.properties ?? {}).filter((p) => p['x-secret'] === true);
        expect(secretFields.length, 'at least one secret credential field').to.be.greaterThan(0);
        for (const field of description.credentialSchema.required ?? []) {
          expect(fixture.credentials.secrets, `the fixture's credentials fill the required field ${field}`).to.have.property(field);
        }
      });

      it('declares exactly the capabilities under test, so none goes untested', async () => {
        const description = await gateway.describe();
        expect([...description.capabilities].sort(), 'Describe capabilities vs the fixture').to.deep.equal([...declared].sort());
        expect(cards || declared.has('pix') || declared.has('boleto'), 'at least one way to pay: card, debit_card, pix or boleto').to.equal(true);
      });
    });

    describe('VerifyCredentials', () => {
      it('answers valid for working credentials', async () => {
        expect((await gateway.verifyCredentials({ credentials })).result).to.equal('valid');
      });
      it('answers invalid (not an error) for credentials the partner refuses', async () => {
        expect((await gateway.verifyCredentials({ credentials: invalidCredentials })).result).to.equal('invalid');
      });
      it('answers unreachable (not an error) when the partner cannot be contacted', async () => {
        expect((await gateway.verifyCredentials({ credentials: unreachableCredentials })).result).to.equal('unreachable');
      });
    });

    describe('QueryCharge (always: it resolves unknown outcomes)', () => {
      it('answers NOT_FOUND, an answer and not an error, for an idempotency key it never saw', async () => {
        expect((await gateway.queryCharge({ credentials, idempotencyKey: key() })).status).to.equal('not_found');
      });
    });

    if (cards) defineCardCases();
    if (declared.has('zero_auth')) defineZeroAuthCases();
    else defineZeroAuthAbsent();
    if (declared.has('pix')) definePixCases();
    if (declared.has('boleto')) defineBoletoCases();
    if (declared.has('browser_tokenization')) defineTokenizationCases();
    if (declared.has('three_ds')) defineThreeDsCases();

    function defineCardCases(): void {
      describe('Authorize (card)', () => {
        it('approves with acquirer references', async () => {
          const result = approvedOrFail(await authorize(tokens.approved, 1000));
          expect(result.references.acquirerPaymentId).to.be.a('string').and.not.empty;
          expect(result.capturedAmount).to.equal(0);
          expect(result.fraudReviewPending).to.equal(false);
        });

        it('captures at once when asked to', async () => {
          expect(approvedOrFail(await authorize(tokens.approved, 1500, true)).capturedAmount).to.equal(1500);
        });

        it('returns each issuer decline as data with the raw code', async () => {
          for (const decline of tokens.declines) {
            const result = await authorize(decline.token, 1000);
            expect(result, decline.token).to.deep.include({ status: 'declined', rawCode: decline.rawCode });
          }
        });

        it('answers a processing error with a gRPC status (a technical failure, outcome known)', async () => {
          const error = await failureOf(authorize(tokens.processingError, 1000), 'expected a failure');
          expect(error).to.be.instanceOf(ConnectorFailure);
          expect(error).to.include({ kind: 'technical', outcomeUnknown: false });
        });

        it('lets the timeout token pass the deadline: the core sees DEADLINE_EXCEEDED, outcome unknown', async () => {
          const error = await failureOf(
            impatientGateway.authorize({ credentials, idempotencyKey: key(), paymentId: paymentId(), source: card(tokens.timeout), amount: 1000, currency: 'BRL', capture: false }),
            'expected a timeout',
          );
          expect(error).to.be.instanceOf(ConnectorFailure);
          expect(error).to.include({ kind: 'timeout', outcomeUnknown: true, nothingSent: false });
        });

        it('acts once per idempotency key: a retry returns the first answer', async () => {
          const idempotencyKey = key();
          const first = approvedOrFail(await authorize(tokens.approved, 1000, false, idempotencyKey));
          const again = approvedOrFail(await authorize(tokens.approved, 1000, false, idempotencyKey));
          expect(again.references).to.deep.equal(first.references);
        });

        it('fails technically (a gRPC status, not a decline) when the partner refuses the credentials', async () => {
          const attempt = gateway.authorize({
            credentials: invalidCredentials,
            idempotencyKey: key(),
            paymentId: paymentId(),
            source: card(tokens.approved),
            amount: 1000,
            currency: 'BRL',
            capture: false,
          });
          await expect(attempt).to.be.rejectedWith(ConnectorFailure);
        });

        it('answers INVALID_ARGUMENT for a request it cannot translate (no card)', async () => {
          const request = AuthorizeRequest.fromPartial({ credentials: toProtoCredentials(credentials), idempotencyKey: key(), paymentId: paymentId(), amount: 1000, currency: 'BRL' });
          const error = await failureOf(callUnary(client, client.authorize, request, 5_000), 'an authorization without a card was answered');
          expect(error.code).to.equal(status.INVALID_ARGUMENT);
        });

        if (declared.has('split')) {
          it('approves an authorization split between recipients (split)', async () => {
            const result = await gateway.authorize({
              credentials,
              idempotencyKey: key(),
              paymentId: paymentId(),
              source: card(tokens.approved),
              amount: 1000,
              currency: 'BRL',
              capture: true,
              splits: [
                { recipientId: 'rp_contract_a', amount: 700, liableForChargeback: true, chargeProcessingFee: true },
                { recipientId: 'rp_contract_b', amount: 300, liableForChargeback: false, chargeProcessingFee: false },
              ],
            });
            expect(approvedOrFail(result).capturedAmount).to.equal(1000);
          });
        }
      });

      describe('Capture (card)', () => {
        if (declared.has('partial_capture')) {
          it('captures part of an authorization and refuses a second capture (partial_capture)', async () => {
            const id = approvedOrFail(await authorize(tokens.approved, 1000)).references.acquirerPaymentId;
            const partial = await gateway.capture({ credentials, idempotencyKey: key(), acquirerPaymentId: id, amount: 600 });
            expect(partial).to.include({ status: 'approved', amount: 600 });
            const second = await gateway.capture({ credentials, idempotencyKey: key(), acquirerPaymentId: id, amount: 400 });
            expect(second.status).to.equal('declined');
          });
        }

        it('declines a capture above the authorized amount as data, with a raw code', async () => {
          const auth = approvedOrFail(await authorize(tokens.approved, 1000));
          const result = await gateway.capture({ credentials, idempotencyKey: key(), acquirerPaymentId: auth.references.acquirerPaymentId, amount: 1001 });
          expect(result.status).to.equal('declined');
          if (result.status === 'declined') expect(result.rawCode).to.be.a('string').and.not.empty;
        });

        it('replays the first answer for a repeated idempotency key', async () => {
          const auth = approvedOrFail(await authorize(tokens.approved, 1000));
          const input = { credentials, idempotencyKey: key(), acquirerPaymentId: auth.references.acquirerPaymentId, amount: 1000 };
          const first = await gateway.capture(input);
          expect(first.status).to.equal('approved');
          expect(await gateway.capture(input)).to.deep.equal(first);
        });
      });

      describe('Void (card)', () => {
        it('voids an authorization, and a repeated key replays the void', async () => {
          const auth = approvedOrFail(await authorize(tokens.approved, 1000));
          const input = { credentials, idempotencyKey: key(), acquirerPaymentId: auth.references.acquirerPaymentId };
          const first = await gateway.void(input);
          expect(first.status).to.equal('approved');
          expect(await gateway.void(input)).to.deep.equal(first);
        });

        it('declines voiding a captured payment, or capturing a voided one', async () => {
          const captured = approvedOrFail(await authorize(tokens.approved, 1000, true));
          const voidCaptured = await gateway.void({ credentials, idempotencyKey: key(), acquirerPaymentId: captured.references.acquirerPaymentId });
          expect(voidCaptured.status).to.equal('declined');

          const id = approvedOrFail(await authorize(tokens.approved, 1000)).references.acquirerPaymentId;
          await gateway.void({ credentials, idempotencyKey: key(), acquirerPaymentId: id });
          const captureVoided = await gateway.capture({ credentials, idempotencyKey: key(), acquirerPaymentId: id, amount: 1000 });
          expect(captureVoided.status).to.equal('declined');
        });
      });

      if (declared.has('refund')) {
        describe('Refund (refund)', () => {
          it('refunds in parts up to the captured amount and declines beyond it', async () => {
            const id = approvedOrFail(await authorize(tokens.approved, 1000, true)).references.acquirerPaymentId;
            const refund = (amount: number) => gateway.refund({ credentials, idempotencyKey: key(), acquirerPaymentId: id, amount });
            expect(await refund(300)).to.include({ status: 'approved', amount: 300 });
            expect((await refund(800)).status, 'more than remains').to.equal('declined');
            expect(await refund(700)).to.include({ status: 'approved', amount: 700 });
            expect((await refund(1)).status, 'nothing remains').to.equal('declined');
          });

          it('declines refunding an uncaptured authorization', async () => {
            const auth = approvedOrFail(await authorize(tokens.approved, 1000));
            const result = await gateway.refund({ credentials, idempotencyKey: key(), acquirerPaymentId: auth.references.acquirerPaymentId, amount: 100 });
            expect(result.status).to.equal('declined');
          });

          it('replays a refund for a repeated idempotency key instead of refunding twice', async () => {
            const auth = approvedOrFail(await authorize(tokens.approved, 1000, true));
            const input = { credentials, idempotencyKey: key(), acquirerPaymentId: auth.references.acquirerPaymentId, amount: 700 };
            const first = await gateway.refund(input);
            expect(first.status).to.equal('approved');
            expect(await gateway.refund(input)).to.deep.equal(first);
            expect(await gateway.refund({ ...input, idempotencyKey: key(), amount: 300 })).to.include({ status: 'approved', amount: 300 });
          });
        });
      }

      describe('QueryCharge (card)', () => {
        it('finds an authorization by its idempotency key and by acquirer id, and follows capture', async () => {
          const idempotencyKey = key();
          const auth = approvedOrFail(await authorize(tokens.approved, 1000, false, idempotencyKey));
          const id = auth.references.acquirerPaymentId;
          const byKey = await gateway.queryCharge({ credentials, idempotencyKey });
          expect(byKey).to.include({ status: 'authorized', paidAmount: 0 });
          expect(byKey.references?.acquirerPaymentId, 'references of the authorization').to.equal(id);
          expect((await gateway.queryCharge({ credentials, acquirerPaymentId: id })).status).to.equal('authorized');
          await gateway.capture({ credentials, idempotencyKey: key(), acquirerPaymentId: id, amount: 1000 });
          expect(await gateway.queryCharge({ credentials, acquirerPaymentId: id })).to.include({ status: 'captured', paidAmount: 1000 });
        });

        it('reports a voided authorization as VOIDED', async () => {
          const id = approvedOrFail(await authorize(tokens.approved, 1000)).references.acquirerPaymentId;
          await gateway.void({ credentials, idempotencyKey: key(), acquirerPaymentId: id });
          expect((await gateway.queryCharge({ credentials, acquirerPaymentId: id })).status).to.equal('voided');
        });
      });

      describe('Deadline (card): nothing executes past the deadline', () => {
        // How a call looks to an adapter that was frozen (SIGSTOP, a long pause) between the core's send and its
        // read: gRPC's own timeout (grpc-timeout) restarts when the call is read, while the absolute deadline the core
        // sends (connector-deadline-at) has passed. The core has fallen back to another account by then.
        it('executes nothing for an Authorize read past its deadline: not found, and a re-send with its key acts once', async () => {
          const idempotencyKey = key();
          const late = AuthorizeRequest.fromPartial({
            credentials: toProtoCredentials(credentials),
            idempotencyKey,
            paymentId: paymentId(),
            source: protoCard(tokens.approved),
            amount: 1000,
            currency: 'BRL',
            capture: true,
          });
          expect((await lateCall(client.authorize, late)).code).to.equal(status.DEADLINE_EXCEEDED);
          expect((await gateway.queryCharge({ credentials, idempotencyKey })).status).to.equal('not_found');
          // The refusal was not an answer: the core's reconciliation re-sends the key and the acquirer acts now, once.
          expect(approvedOrFail(await authorize(tokens.approved, 1000, true, idempotencyKey)).capturedAmount).to.equal(1000);
          expect((await gateway.queryCharge({ credentials, idempotencyKey })).status).to.equal('captured');
        });

        it('executes nothing for a Capture read past its deadline: the authorization stays uncaptured', async () => {
          const idempotencyKey = key();
          const auth = approvedOrFail(await authorize(tokens.approved, 1000, false, idempotencyKey));
          const late = CaptureRequest.fromPartial({
            credentials: toProtoCredentials(credentials),
            idempotencyKey: key(),
            acquirerPaymentId: auth.references.acquirerPaymentId,
            amount: 1000,
          });
          expect((await lateCall(client.capture, late)).code).to.equal(status.DEADLINE_EXCEEDED);
          expect(await gateway.queryCharge({ credentials, idempotencyKey })).to.include({ status: 'authorized', paidAmount: 0 });
        });

        it(`answers INVALID_ARGUMENT for a malformed ${DEADLINE_AT_METADATA_KEY}, executing nothing`, async () => {
          const idempotencyKey = key();
          const metadata = new Metadata();
          metadata.set(DEADLINE_AT_METADATA_KEY, 'tomorrow at noon');
          const request = AuthorizeRequest.fromPartial({
            credentials: toProtoCredentials(credentials),
            idempotencyKey,
            paymentId: paymentId(),
            source: protoCard(tokens.approved),
            amount: 1000,
            currency: 'BRL',
          });
          const error = await failureOf(callUnary(client, client.authorize, request, 5_000, metadata), 'a call with a malformed deadline was executed');
          expect(error.code).to.equal(status.INVALID_ARGUMENT);
          expect((await gateway.queryCharge({ credentials, idempotencyKey })).status).to.equal('not_found');
        });
      });
    }

    function defineZeroAuthCases(): void {
      describe('ZeroAuth (zero_auth)', () => {
        it('validates a good card and declines a bad one with the raw code', async () => {
          expect((await gateway.zeroAuth({ credentials, idempotencyKey: key(), source: card(tokens.approved) })).status).to.equal('approved');
          const decline = tokens.declines[0]!;
          expect(await gateway.zeroAuth({ credentials, idempotencyKey: key(), source: card(decline.token) })).to.deep.include({
            status: 'declined',
            rawCode: decline.rawCode,
          });
        });

        it('throws a technical failure on a processing error', async () => {
          await expect(gateway.zeroAuth({ credentials, idempotencyKey: key(), source: card(tokens.processingError) })).to.be.rejectedWith(ConnectorFailure);
        });
      });
    }

    function defineZeroAuthAbsent(): void {
      describe('ZeroAuth (zero_auth not declared)', () => {
        it('answers UNIMPLEMENTED, as the contract asks of an acquirer without the feature', async () => {
          const error = await failureOf(gateway.zeroAuth({ credentials, idempotencyKey: key(), source: card(tokens.approved) }), 'ZeroAuth answered');
          expect(error).to.include({ transportCode: 'UNIMPLEMENTED' });
        });
      });
    }

    function definePixCases(): void {
      const createPix = (amount: number, idempotencyKey = key()) =>
        gateway.createPixCharge({ credentials, idempotencyKey, paymentId: paymentId(), amount, expiresInSeconds: 3600, description: 'Contract test' });

      describe('CreatePixCharge (pix)', () => {
        it('issues a charge awaiting payment with a BR Code whose fields and CRC16 check, expiring later', async () => {
          const pix = await createPix(12345);
          expect(pix.status).to.equal('awaiting_payment');
          expect(pix.acquirerPaymentId).to.be.a('string').and.not.empty;
          expect(brCodeProblems(pix.pix?.qrCode ?? '', 12345), 'BR Code problems').to.deep.equal([]);
          expect(Date.parse(pix.expiresAt ?? ''), 'expiresAt').to.be.greaterThan(Date.now());
        });

        it('replays the charge for a repeated idempotency key', async () => {
          const idempotencyKey = key();
          const first = await createPix(500, idempotencyKey);
          expect(await createPix(500, idempotencyKey)).to.deep.equal(first);
        });

        it('executes nothing for a CreatePixCharge read past its deadline', async () => {
          const idempotencyKey = key();
          const late = CreatePixChargeRequest.fromPartial({
            credentials: toProtoCredentials(credentials),
            idempotencyKey,
            paymentId: paymentId(),
            amount: 1000,
            expiresInSeconds: 3600,
          });
          expect((await lateCall(client.createPixCharge, late)).code).to.equal(status.DEADLINE_EXCEEDED);
          expect((await gateway.queryCharge({ credentials, idempotencyKey })).status).to.equal('not_found');
        });
      });

      describe('QueryCharge and CancelCharge (pix)', () => {
        it('finds the charge by acquirer id and by idempotency key, cancels it, and then reports it CANCELED', async () => {
          const idempotencyKey = key();
          const pix = await createPix(2000, idempotencyKey);
          expect((await gateway.queryCharge({ credentials, acquirerPaymentId: pix.acquirerPaymentId })).status).to.equal('awaiting_payment');
          expect((await gateway.queryCharge({ credentials, idempotencyKey })).status).to.equal('awaiting_payment');
          expect((await gateway.cancelCharge({ credentials, idempotencyKey: key(), acquirerPaymentId: pix.acquirerPaymentId })).status).to.equal('canceled');
          expect((await gateway.queryCharge({ credentials, acquirerPaymentId: pix.acquirerPaymentId })).status).to.equal('canceled');
        });

        it('answers NOT_FOUND for cancelling a charge it does not know', async () => {
          expect((await gateway.cancelCharge({ credentials, idempotencyKey: key(), acquirerPaymentId: `unknown_${randomUUID()}` })).status).to.equal('not_found');
        });
      });
    }

    function defineBoletoCases(): void {
      const dueDate = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
      const createBoleto = (amount: number, idempotencyKey = key()) =>
        gateway.createBoleto({ credentials, idempotencyKey, paymentId: paymentId(), amount, dueDate, daysAfterDue: 2 });

      describe('CreateBoleto (boleto)', () => {
        it('issues a boleto whose barcode and digitable line check (FEBRABAN check digits, amount)', async () => {
          const boleto = await createBoleto(9990);
          expect(boleto.status).to.equal('awaiting_payment');
          expect(boletoProblems(boleto.boleto?.barcode ?? '', boleto.boleto?.digitableLine ?? '', 9990), 'boleto problems').to.deep.equal([]);
        });

        it('replays the boleto for a repeated idempotency key', async () => {
          const idempotencyKey = key();
          const first = await createBoleto(1500, idempotencyKey);
          expect(await createBoleto(1500, idempotencyKey)).to.deep.equal(first);
        });
      });

      describe('QueryCharge and CancelCharge (boleto)', () => {
        it('finds the boleto by acquirer id and by idempotency key, writes it off, and then reports it CANCELED', async () => {
          const idempotencyKey = key();
          const boleto = await createBoleto(4321, idempotencyKey);
          expect((await gateway.queryCharge({ credentials, acquirerPaymentId: boleto.acquirerPaymentId })).status).to.equal('awaiting_payment');
          expect((await gateway.queryCharge({ credentials, idempotencyKey })).status).to.equal('awaiting_payment');
          expect((await gateway.cancelCharge({ credentials, idempotencyKey: key(), acquirerPaymentId: boleto.acquirerPaymentId })).status).to.equal('canceled');
          expect((await gateway.queryCharge({ credentials, acquirerPaymentId: boleto.acquirerPaymentId })).status).to.equal('canceled');
        });
      });
    }

    function defineTokenizationCases(): void {
      describe('CreateTokenizationSession (browser_tokenization)', () => {
        it('opens a session with a tokenize URL at the vault, expiring within its time to live', async () => {
          const before = Date.now();
          const session = await gateway.createTokenizationSession({ credentials, paymentId: paymentId(), clientSecret: `pay_secret_${randomUUID()}`, ttlSeconds: 600 });
          expect(session.sessionId).to.be.a('string').and.not.empty;
          expect(new URL(session.tokenizeUrl).protocol).to.match(/^https?:$/);
          const expiresAt = Date.parse(session.expiresAt);
          expect(expiresAt).to.be.greaterThan(before);
          expect(expiresAt).to.be.at.most(Date.now() + 600_000 + 1_000);
        });
      });
    }

    function defineThreeDsCases(): void {
      describe('Authenticate3ds (three_ds)', () => {
        it('asks for a challenge, authenticates once resumed, and the authorization carrying it is approved', async () => {
          const challengeCard = card(tokens.threeDsChallenge!);
          const base = { credentials, paymentId: paymentId(), card: challengeCard, amount: 1000, currency: 'BRL' };
          const first = await gateway.authenticate3ds({ ...base, idempotencyKey: key() });
          if (first.status !== 'challenge_required') expect.fail(`expected challenge_required, got ${JSON.stringify(first)}`);
          expect(first.authenticationId).to.be.a('string').and.not.empty;
          expect(new URL(first.challengeUrl).protocol).to.match(/^https?:$/);
          const resumed = await gateway.authenticate3ds({ ...base, idempotencyKey: key(), authenticationId: first.authenticationId });
          expect(resumed).to.include({ status: 'authenticated', authenticationId: first.authenticationId });
          const auth = await gateway.authorize({
            ...base,
            idempotencyKey: key(),
            source: challengeCard,
            capture: true,
            threeDsAuthenticationId: first.authenticationId,
          });
          expect(approvedOrFail(auth).capturedAmount).to.equal(1000);
        });
      });
    }
  });
}
