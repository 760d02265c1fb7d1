import { sandboxFraudAnalysis } from './sandbox-fraud-analysis';
import { status, type ServerUnaryCall } from '@grpc/grpc-js';
import {
  AcquirerConnectorService,
  Authenticate3dsResponse_Status,
  ChargeStatus,
  Outcome,
  VerifyCredentialsResponse_Result,
  type AcquirerConnectorServer,
  type AuthorizeRequest,
  type AuthorizeResponse,
  type CardToken,
  type ChargeResponse,
  type ChargeStatusResponse,
  type Credentials,
  type NetworkToken,
  type ZeroAuthResponse,
} from '../../grpc/generated/connector/v1/connector';
import {
  SandboxControlService,
  SimulateChargeRequest_Outcome,
  type SandboxControlServer,
} from '../../grpc/generated/connector/v1/sandbox';
import {
  CoreNotificationsClient,
  ReportChargeOutcomeRequest_Status,
  ReportFraudDecisionRequest_Decision,
} from '../../grpc/generated/core/v1/core';
import { callUnary, createGrpcClient } from '../../grpc/grpc-client';
import { assertWithinDeadline } from '../../grpc/call-deadline';
import { grpcError } from '../../grpc/grpc-errors';
import { startGrpcServer, unaryHandler } from '../../grpc/grpc-server';
import {
  SANDBOX_CAPABILITIES,
  SANDBOX_CONFIG_SCHEMA,
  SANDBOX_CREDENTIAL_SCHEMA,
  scenarioForToken,
  verificationForApiKey,
  type SandboxScenario,
} from './scenarios';
import { boletoCodes, pixBrCode } from './sandbox-payment-codes';
import { SandboxLedger, newReferences, sandboxId, type CardRecord, type ChargeRecord } from './sandbox-ledger';
import { startSandboxVault, type VaultSession } from './sandbox-vault.server';

export const SANDBOX_SLUG = 'sandbox';

export interface SandboxAcquirerOptions {
  readonly port?: number;
  readonly host?: string;
  /** How long the `timeout` scenario sleeps before giving up; keep it above the caller's deadline. Default 15000. */
  readonly timeoutScenarioDelayMs?: number;
  /** Delay before fraud_review_accept/reject are decided (SANDBOX_FRAUD_REVIEW_DELAY_MS). Default 5000. */
  readonly fraudReviewDelayMs?: number;
  /** Address of the core's CoreNotifications server; when set, fraud decisions are reported there. */
  readonly coreNotificationsAddress?: string;
  /** Port of the sandbox card vault's HTTP server (default 0: any free port). */
  readonly vaultPort?: number;
  /** Public base URL of the vault when it is reached through a proxy (default: its own http://host:port). */
  readonly vaultBaseUrl?: string;
}

export interface RunningSandboxAcquirer {
  readonly port: number;
  readonly address: string;
  /** Base URL of the sandbox card vault (where browsers post card numbers). */
  readonly vaultUrl: string;
  /**
   * Points fraud decision reports at the core's CoreNotifications server once it listens (embedded mode starts
   * the adapters before the core's modules, so the address is only known later).
   */
  setCoreNotificationsAddress(address: string): void;
  /** Stops accepting calls and lets those in flight finish for up to `graceMs` (default 1 s), then cuts them. */
  stop(graceMs?: number): Promise<void>;
}

interface SandboxMerchant {
  readonly merchantId: string;
}

const DEFAULT_TIMEOUT_SCENARIO_DELAY_MS = 15_000;
const DEFAULT_FRAUD_REVIEW_DELAY_MS = 5_000;

/**
 * Every call must carry the sandbox credentials. A missing field is a request the adapter cannot translate
 * (INVALID_ARGUMENT); the test apiKeys `invalid` / `unreachable` make every money call fail technically,
 * as a real acquirer would with revoked keys or an outage.
 */
function authenticate(credentials: Credentials | undefined): SandboxMerchant {
  const merchantId = credentials?.secrets['merchantId'] ?? '';
  const apiKey = credentials?.secrets['apiKey'] ?? '';
  if (!merchantId || !apiKey) {
    throw grpcError(status.INVALID_ARGUMENT, 'Sandbox credentials need merchantId and apiKey');
  }
  const verification = verificationForApiKey(apiKey);
  if (verification === 'invalid') throw grpcError(status.UNAUTHENTICATED, 'The sandbox acquirer refused the API key');
  if (verification === 'unreachable') throw grpcError(status.UNAVAILABLE, 'The sandbox acquirer could not be reached');
  return { merchantId };
}

function tokenOf(source: { $case: 'card'; card: CardToken } | { $case: 'networkToken'; networkToken: NetworkToken } | undefined): string {
  if (!source) throw grpcError(status.INVALID_ARGUMENT, 'A card or network token is required');
  const token = source.$case === 'card' ? source.card.token : source.networkToken.token;
  if (!token) throw grpcError(status.INVALID_ARGUMENT, 'The token is empty');
  return token;
}

function addSeconds(seconds: number): string {
  return new Date(Date.now() + seconds * 1000).toISOString();
}

function todayPlusDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

export class SandboxAcquirer {
  readonly ledger = new SandboxLedger();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly sleepers = new Set<() => void>();
  private core: CoreNotificationsClient | undefined;
  private readonly timeoutDelayMs: number;
  private readonly fraudReviewDelayMs: number;
  /** Set once the vault listens (startSandboxAcquirer), unless given. */
  vaultBaseUrl: string;
  /** Tokenization sessions, shared with the vault HTTP server. */
  readonly vaultSessions = new Map<string, VaultSession>();

  constructor(options: SandboxAcquirerOptions = {}) {
    this.timeoutDelayMs = options.timeoutScenarioDelayMs ?? DEFAULT_TIMEOUT_SCENARIO_DELAY_MS;
    this.fraudReviewDelayMs = options.fraudReviewDelayMs ?? DEFAULT_FRAUD_REVIEW_DELAY_MS;
    this.vaultBaseUrl = options.vaultBaseUrl ?? '';
    this.core = options.coreNotificationsAddress
      ? createGrpcClient(CoreNotificationsClient, options.coreNotificationsAddress)
      : undefined;
  }

  /** Late binding of the CoreNotifications address; decisions scheduled before are reported there too. */
  setCoreNotificationsAddress(address: string): void {
    this.core?.close();
    this.core = createGrpcClient(CoreNotificationsClient, address);
  }

  /** Cancels pending timers and wakes the calls still sleeping; called once the server has drained (or cut) its calls. */
  dispose(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const wake of this.sleepers) wake();
    this.core?.close();
  }

  /** Sleeps for the timeout scenario; wakes early when the caller gives up or the server stops. */
  private async sleepPastDeadline(call: ServerUnaryCall<unknown, unknown>): Promise<never> {
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, this.timeoutDelayMs);
      this.sleepers.add(wake);
      call.on('cancelled', wake);
    });
    // Reached only by a caller with a longer deadline than the scenario's delay: still no business answer,
    // and nothing was recorded, so a query finds nothing.
    throw grpcError(status.UNAVAILABLE, 'Sandbox timeout scenario: the acquirer did not answer in time');
  }

  private failTechnically(scenario: SandboxScenario): void {
    if (scenario.kind === 'processing_error') {
      throw grpcError(status.UNAVAILABLE, 'Sandbox processing_error scenario: the acquirer failed to process the request');
    }
  }

  private scheduleFraudDecision(record: CardRecord, decision: 'accept' | 'reject'): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (record.fraudReview !== 'pending') return; // the merchant decided first (capture or void)
      record.fraudReview = decision === 'accept' ? 'accepted' : 'rejected';
      if (decision === 'reject' && record.status === 'authorized') record.status = 'voided';
      if (this.core) {
        const core = this.core;
        callUnary(
          core,
          core.reportFraudDecision,
          {
            reportId: sandboxId('rep'),
            connectorSlug: SANDBOX_SLUG,
            connectorAccountId: '',
            acquirerPaymentId: record.id,
            idempotencyKey: record.idempotencyKey,
            decision: decision === 'accept' ? ReportFraudDecisionRequest_Decision.ACCEPTED : ReportFraudDecisionRequest_Decision.REJECTED,
            decidedAt: new Date().toISOString(),
          },
          5_000,
        ).catch(() => undefined); // the core also learns it by QueryCharge; a lost report is not fatal
      }
    }, this.fraudReviewDelayMs);
    timer.unref();
    this.timers.add(timer);
  }

  /**
   * Tells the core a charge changed at the bank (core.v1 ReportChargeOutcome), as a real adapter relays its bank's
   * notice. A hint only: the core checks it with QueryCharge. Lost reports are not fatal (the core polls).
   */
  private reportChargeOutcome(charge: ChargeRecord): void {
    if (!this.core) return;
    const core = this.core;
    const status = charge.status === 'paid' ? ReportChargeOutcomeRequest_Status.PAID : charge.status === 'expired' ? ReportChargeOutcomeRequest_Status.EXPIRED : ReportChargeOutcomeRequest_Status.CANCELED;
    callUnary(
      core,
      core.reportChargeOutcome,
      {
        reportId: sandboxId('rep'),
        connectorSlug: SANDBOX_SLUG,
        connectorAccountId: '',
        acquirerPaymentId: charge.id,
        idempotencyKey: charge.idempotencyKey,
        status,
        paidAmount: charge.status === 'paid' ? charge.amount : 0,
        occurredAt: new Date().toISOString(),
      },
      5_000,
    ).catch(() => undefined);
  }

  readonly service: AcquirerConnectorServer = {
    describe: unaryHandler(async () => ({
      slug: SANDBOX_SLUG,
      name: 'Sandbox Acquirer',
      kind: 'acquirer',
      capabilities: [...SANDBOX_CAPABILITIES],
      credentialSchemaJson: JSON.stringify(SANDBOX_CREDENTIAL_SCHEMA),
      configSchemaJson: JSON.stringify(SANDBOX_CONFIG_SCHEMA),
      available: true,
    })),

    verifyCredentials: unaryHandler(async (request) => {
      const merchantId = request.credentials?.secrets['merchantId'] ?? '';
      const apiKey = request.credentials?.secrets['apiKey'] ?? '';
      if (!merchantId || !apiKey) {
        return { result: VerifyCredentialsResponse_Result.INVALID, message: 'merchantId and apiKey are required' };
      }
      switch (verificationForApiKey(apiKey)) {
        case 'invalid':
          return { result: VerifyCredentialsResponse_Result.INVALID, message: 'The sandbox acquirer refused the API key' };
        case 'unreachable':
          return { result: VerifyCredentialsResponse_Result.UNREACHABLE, message: 'The sandbox acquirer could not be reached' };
        default:
          return { result: VerifyCredentialsResponse_Result.VALID, message: 'Credentials accepted' };
      }
    }),

    // Every handler with an effect checks the call's deadline first and again right before the ledger records the
    // effect (infrastructure/grpc/call-deadline.ts): a call the core gave up on executes nothing. A failed check is
    // not an answer, so the ledger forgets it and a re-send with the same key acts once.
    authorize: unaryHandler(async (request: AuthorizeRequest, call) => {
      assertWithinDeadline(call);
      const merchant = authenticate(request.credentials);
      const token = tokenOf(request.source);
      if (request.amount <= 0) throw grpcError(status.INVALID_ARGUMENT, 'amount must be positive');
      const scenario = scenarioForToken(token);
      if (scenario.kind === 'timeout') return this.sleepPastDeadline(call);
      this.failTechnically(scenario);
      return this.ledger.once('Authorize', merchant.merchantId, request.idempotencyKey, () => {
        assertWithinDeadline(call);
        return this.authorize(merchant, request, scenario);
      });
    }),

    capture: unaryHandler(async (request, call) => {
      assertWithinDeadline(call);
      const merchant = authenticate(request.credentials);
      return this.ledger.once('Capture', merchant.merchantId, request.idempotencyKey, () => {
        assertWithinDeadline(call);
        return this.ledger.capture(merchant.merchantId, request.acquirerPaymentId, request.amount);
      });
    }),

    void: unaryHandler(async (request, call) => {
      assertWithinDeadline(call);
      const merchant = authenticate(request.credentials);
      return this.ledger.once('Void', merchant.merchantId, request.idempotencyKey, () => {
        assertWithinDeadline(call);
        return this.ledger.void(merchant.merchantId, request.acquirerPaymentId, request.amount);
      });
    }),

    refund: unaryHandler(async (request, call) => {
      assertWithinDeadline(call);
      const merchant = authenticate(request.credentials);
      return this.ledger.once('Refund', merchant.merchantId, request.idempotencyKey, () => {
        assertWithinDeadline(call);
        return this.ledger.refund(merchant.merchantId, request.acquirerPaymentId, request.amount);
      });
    }),

    zeroAuth: unaryHandler(async (request, call): Promise<ZeroAuthResponse> => {
      assertWithinDeadline(call);
      authenticate(request.credentials);
      const scenario = scenarioForToken(tokenOf(request.source));
      if (scenario.kind === 'timeout') return this.sleepPastDeadline(call);
      this.failTechnically(scenario);
      if (scenario.kind === 'declined') return { outcome: Outcome.DECLINED, rawCode: scenario.rawCode, message: scenario.message };
      return { outcome: Outcome.APPROVED, rawCode: '00', message: 'Card verified' };
    }),

    createPixCharge: unaryHandler(async (request, call) => {
      assertWithinDeadline(call);
      const merchant = authenticate(request.credentials);
      if (request.amount <= 0) throw grpcError(status.INVALID_ARGUMENT, 'amount must be positive');
      return this.ledger.once('CreatePixCharge', merchant.merchantId, request.idempotencyKey, (): ChargeResponse => {
        assertWithinDeadline(call);
        const id = sandboxId('sbxpix');
        const expiresAt = addSeconds(request.expiresInSeconds > 0 ? request.expiresInSeconds : 3600);
        this.ledger.addCharge({
          kind: 'pix',
          id,
          merchantId: merchant.merchantId,
          idempotencyKey: request.idempotencyKey,
          amount: request.amount,
          status: 'awaiting_payment',
          expiresAt,
        });
        return {
          acquirerPaymentId: id,
          status: ChargeStatus.AWAITING_PAYMENT,
          pixQrCode: pixBrCode({
            pixKey: `${merchant.merchantId}@sandbox.pix`.slice(0, 77),
            amount: request.amount,
            merchantName: 'SANDBOX MERCHANT',
            city: 'SAO PAULO',
            txid: id.replace(/_/g, '').slice(0, 25),
          }),
          digitableLine: '',
          barcode: '',
          pdfUrl: '',
          expiresAt,
        };
      });
    }),

    createBoleto: unaryHandler(async (request, call) => {
      assertWithinDeadline(call);
      const merchant = authenticate(request.credentials);
      if (request.amount <= 0) throw grpcError(status.INVALID_ARGUMENT, 'amount must be positive');
      return this.ledger.once('CreateBoleto', merchant.merchantId, request.idempotencyKey, (): ChargeResponse => {
        assertWithinDeadline(call);
        const id = sandboxId('sbxbol');
        const dueDate = request.dueDate || todayPlusDays(3);
        const expiresAt = new Date(Date.parse(`${dueDate}T23:59:59.999Z`) + request.daysAfterDue * 86_400_000).toISOString();
        const ourNumber = String(BigInt(`0x${id.slice(-12)}`)).padStart(25, '0').slice(-25);
        const codes = boletoCodes({ amount: request.amount, dueDate, freeField: ourNumber });
        this.ledger.addCharge({
          kind: 'boleto',
          id,
          merchantId: merchant.merchantId,
          idempotencyKey: request.idempotencyKey,
          amount: request.amount,
          status: 'awaiting_payment',
          expiresAt,
          printable: { digitableLine: codes.digitableLine, barcode: codes.barcode, dueDate, payerName: request.customer?.name ?? '', instructions: request.instructions },
        });
        return {
          acquirerPaymentId: id,
          status: ChargeStatus.AWAITING_PAYMENT,
          pixQrCode: '',
          digitableLine: codes.digitableLine,
          barcode: codes.barcode,
          pdfUrl: `${this.vaultBaseUrl}/boletos/${id}`,
          expiresAt,
        };
      });
    }),

    queryCharge: unaryHandler(async (request) => {
      const merchant = authenticate(request.credentials);
      const card = request.acquirerPaymentId
        ? this.ledger.card(merchant.merchantId, request.acquirerPaymentId)
        : this.ledger.cardByKey(merchant.merchantId, request.idempotencyKey);
      if (card) return this.cardStatus(card);
      const charge = request.acquirerPaymentId
        ? this.ledger.charge(merchant.merchantId, request.acquirerPaymentId)
        : this.ledger.chargeByKey(merchant.merchantId, request.idempotencyKey);
      if (charge) return this.chargeStatus(charge);
      return { status: ChargeStatus.NOT_FOUND, paidAmount: 0, paidAt: '', rawCode: 'payment_not_found' };
    }),

    cancelCharge: unaryHandler(async (request, call) => {
      assertWithinDeadline(call);
      const merchant = authenticate(request.credentials);
      const charge = this.ledger.charge(merchant.merchantId, request.acquirerPaymentId);
      if (!charge) return { status: ChargeStatus.NOT_FOUND, paidAmount: 0, paidAt: '', rawCode: 'payment_not_found' };
      if (charge.status === 'awaiting_payment') charge.status = 'canceled';
      return this.chargeStatus(charge);
    }),

    createTokenizationSession: unaryHandler(async (request, call) => {
      assertWithinDeadline(call);
      authenticate(request.credentials);
      if (!request.clientSecret) throw grpcError(status.INVALID_ARGUMENT, 'client_secret is required: the vault checks it');
      const sessionId = sandboxId('tks');
      const ttlSeconds = request.ttlSeconds > 0 ? request.ttlSeconds : 900;
      for (const [id, session] of this.vaultSessions) if (session.expiresAt < Date.now()) this.vaultSessions.delete(id);
      this.vaultSessions.set(sessionId, {
        id: sessionId,
        paymentId: request.paymentId,
        clientSecret: request.clientSecret,
        expiresAt: Date.now() + ttlSeconds * 1000,
        spent: false,
      });
      return {
        sessionId,
        tokenizeUrl: `${this.vaultBaseUrl}/sessions/${sessionId}/tokenize`,
        expiresAt: addSeconds(ttlSeconds),
      };
    }),

    authenticate3Ds: unaryHandler(async (request, call) => {
      assertWithinDeadline(call);
      authenticate(request.credentials);
      const scenario = scenarioForToken(request.card?.token ?? '');
      if (scenario.kind === 'timeout') return this.sleepPastDeadline(call);
      this.failTechnically(scenario);
      if (scenario.kind === 'three_ds' && !request.authenticationId) {
        const authenticationId = sandboxId('3ds');
        return {
          status: Authenticate3dsResponse_Status.CHALLENGE_REQUIRED,
          authenticationId,
          challengeUrl: `${this.vaultBaseUrl}/three-ds/${authenticationId}`,
          eci: '',
          cavv: '',
        };
      }
      return {
        status: Authenticate3dsResponse_Status.AUTHENTICATED,
        authenticationId: request.authenticationId || sandboxId('3ds'),
        challengeUrl: '',
        eci: '05',
        cavv: Buffer.from(sandboxId('cavv')).toString('base64').slice(0, 28),
      };
    }),
  };

  readonly control: SandboxControlServer = {
    simulateCharge: unaryHandler(async (request, call) => {
      assertWithinDeadline(call);
      const merchant = authenticate(request.credentials);
      const charge = this.ledger.charge(merchant.merchantId, request.acquirerPaymentId);
      if (!charge) {
        return { applied: false, charge: { status: ChargeStatus.NOT_FOUND, paidAmount: 0, paidAt: '', rawCode: 'payment_not_found' } };
      }
      if (request.outcome !== SimulateChargeRequest_Outcome.PAID && request.outcome !== SimulateChargeRequest_Outcome.EXPIRED) {
        throw grpcError(status.INVALID_ARGUMENT, 'outcome must be PAID or EXPIRED');
      }
      const current = this.chargeStatus(charge); // also expires a charge whose deadline passed
      if (charge.status !== 'awaiting_payment') return { applied: false, charge: current };
      if (request.outcome === SimulateChargeRequest_Outcome.PAID) {
        charge.status = 'paid';
        charge.paidAt = new Date().toISOString();
      } else {
        charge.status = 'expired';
      }
      this.reportChargeOutcome(charge);
      return { applied: true, charge: this.chargeStatus(charge) };
    }),
  };

  private authorize(merchant: SandboxMerchant, request: AuthorizeRequest, scenario: SandboxScenario): AuthorizeResponse {
    const fraudAnalysis = sandboxFraudAnalysis(request, scenario);
    if (scenario.kind === 'declined') {
      return { outcome: Outcome.DECLINED, rawCode: scenario.rawCode, message: scenario.message, fraudReviewPending: false, capturedAmount: 0, fraudAnalysis };
    }
    const references = newReferences();
    // The three_ds card is authorized once authenticated: an Authenticate3ds id, or a 3DS result whose ECI comes with
    // its CAVV (an authentication without its cryptogram proves nothing, so it is asked for again).
    const authenticated = !!request.threeDsAuthenticationId && (!request.threeDsEci || !!request.threeDsCavv);
    if (scenario.kind === 'three_ds' && !authenticated) {
      return {
        outcome: Outcome.PENDING_ACTION,
        rawCode: '',
        message: '3-D Secure authentication required',
        fraudReviewPending: false,
        capturedAmount: 0,
        nextAction: { type: 'three_ds', url: `${this.vaultBaseUrl}/three-ds/${references.acquirerPaymentId}` },
      };
    }
    const fraudReview = scenario.kind === 'approved' ? scenario.fraudReview : undefined;
    // A sale held in fraud review is authorized only, even when capture was asked (spec: authorized even with
    // automatic capture); the core captures once the review is accepted.
    const capture = request.capture && !fraudReview;
    const record: CardRecord = {
      kind: 'card',
      id: references.acquirerPaymentId,
      merchantId: merchant.merchantId,
      idempotencyKey: request.idempotencyKey,
      amount: request.amount,
      currency: request.currency || 'BRL',
      status: capture ? 'captured' : 'authorized',
      capturedAmount: capture ? request.amount : 0,
      refundedAmount: 0,
      fraudReview: fraudReview ? 'pending' : 'none',
      references,
    };
    this.ledger.addCard(record);
    if (fraudReview === 'accept' || fraudReview === 'reject') this.scheduleFraudDecision(record, fraudReview);
    return {
      outcome: Outcome.APPROVED,
      rawCode: '00',
      message: fraudReview ? 'Authorized, held in fraud review' : 'Approved',
      references,
      fraudReviewPending: Boolean(fraudReview),
      capturedAmount: record.capturedAmount,
      fraudAnalysis,
    };
  }

  private cardStatus(record: CardRecord): ChargeStatusResponse {
    return {
      status: SandboxLedger.chargeStatusOfCard(record),
      paidAmount: record.capturedAmount - record.refundedAmount,
      paidAt: '',
      references: record.references,
      rawCode: '00',
    };
  }

  private chargeStatus(record: ChargeRecord): ChargeStatusResponse {
    if (record.status === 'awaiting_payment' && Date.parse(record.expiresAt) < Date.now()) record.status = 'expired';
    return {
      status: SandboxLedger.chargeStatusOf(record),
      paidAmount: record.status === 'paid' ? record.amount : 0,
      paidAt: record.paidAt ?? '',
      references: { acquirerPaymentId: record.id, nsu: '', tid: '', authorizationCode: '' },
      rawCode: '',
    };
  }
}

/**
 * Starts the sandbox acquirer as a real gRPC server (AcquirerConnector + SandboxControl + health) on a loopback
 * port, with its card vault (HTTP) beside it; in-process for embedded mode and tests, or alone via infrastructure/main/connector-process.ts.
 */
export async function startSandboxAcquirer(options: SandboxAcquirerOptions = {}): Promise<RunningSandboxAcquirer> {
  const sandbox = new SandboxAcquirer(options);
  const vault = await startSandboxVault({
    host: options.host ?? '127.0.0.1',
    ...(options.vaultPort !== undefined ? { port: options.vaultPort } : {}),
    sessions: sandbox.vaultSessions,
    boletos: (id) => {
      const charge = sandbox.ledger.anyCharge(id);
      return charge?.kind === 'boleto' && charge.printable ? { ...charge.printable, amount: charge.amount } : null;
    },
  });
  sandbox.vaultBaseUrl = options.vaultBaseUrl ?? vault.url;
  const running = await startGrpcServer({
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    services: [
      { definition: AcquirerConnectorService, implementation: sandbox.service },
      { definition: SandboxControlService, implementation: sandbox.control },
    ],
  });
  return {
    port: running.port,
    address: running.address,
    vaultUrl: sandbox.vaultBaseUrl,
    setCoreNotificationsAddress: (address) => sandbox.setCoreNotificationsAddress(address),
    async stop(graceMs = 1_000) {
      // The drain first (contract.md 8): a call in flight, a timeout scenario's sleep included, finishes with its own
      // answer within the grace. Waking the sleepers before it answered them at once, as if the acquirer had failed.
      await Promise.all([running.stop(graceMs), vault.stop()]);
      sandbox.dispose();
    },
  };
}
