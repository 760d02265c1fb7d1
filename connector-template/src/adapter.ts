import { status, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { assertWithinDeadline } from './deadline';
import { GrpcStatusError, grpcError } from './grpc-error';
import { PartnerAcquirer, PartnerFailure, type CardPayment, type Charge, type PartnerCredentials } from './partner-acquirer';

/**
 * connector.v1.AcquirerConnector over PartnerAcquirer: every RPC translates the request, applies the rules of the
 * contract (proto/connector/v1/connector.proto, header) and translates the answer. The rules live here, so they
 * stay when partner-acquirer.ts is replaced:
 *  - a refusal is DATA (outcome DECLINED + raw_code); a failure is a gRPC status (UNAVAILABLE, UNAUTHENTICATED,
 *    INVALID_ARGUMENT, INTERNAL), see `failureStatus`;
 *  - a repeated idempotency key answers the first answer and acts once (`once`);
 *  - nothing executes past the deadline: checked before and right before each effect (`assertWithinDeadline`).
 */

/** What Describe answers; the core builds its catalog from it. Declare only what the contract suite passes. */
export const DESCRIPTION = {
  slug: 'template-acquirer',
  name: 'Template Acquirer',
  kind: 'acquirer',
  capabilities: ['card', 'partial_capture', 'refund', 'split', 'zero_auth', 'pix', 'boleto', 'browser_tokenization', 'three_ds'],
  credentialSchemaJson: JSON.stringify({
    type: 'object',
    properties: {
      merchantId: { type: 'string', title: 'Merchant ID', minLength: 1 },
      apiKey: { type: 'string', title: 'API key', minLength: 1, 'x-secret': true },
    },
    required: ['merchantId', 'apiKey'],
    additionalProperties: false,
  }),
  configSchemaJson: JSON.stringify({ type: 'object', properties: {}, additionalProperties: false }),
  available: true,
};

/** The request fields this adapter reads (proto-loader objects: camelCase, int64 as numbers, enums as names). */
interface Request {
  credentials?: { secrets?: Record<string, string>; configJson?: string };
  idempotencyKey?: string;
  acquirerPaymentId?: string;
  amount?: number;
  capture?: boolean;
  source?: 'card' | 'networkToken';
  card?: { token?: string };
  networkToken?: { token?: string };
  threeDsAuthenticationId?: string;
  expiresInSeconds?: number;
  dueDate?: string;
  daysAfterDue?: number;
  ttlSeconds?: number;
  clientSecret?: string;
  authenticationId?: string;
}

type Call = ServerUnaryCall<Request, unknown>;

function credentialsOf(request: Request): PartnerCredentials {
  const merchantId = request.credentials?.secrets?.['merchantId'] ?? '';
  const apiKey = request.credentials?.secrets?.['apiKey'] ?? '';
  if (!merchantId || !apiKey) throw grpcError(status.INVALID_ARGUMENT, 'Credentials need merchantId and apiKey');
  return { merchantId, apiKey };
}

function tokenOf(request: Request): string {
  const token = request.source === 'networkToken' ? request.networkToken?.token : request.card?.token;
  if (!token) throw grpcError(status.INVALID_ARGUMENT, 'A card or network token is required');
  return token;
}

function positiveAmount(request: Request): number {
  if (!request.amount || request.amount <= 0) throw grpcError(status.INVALID_ARGUMENT, 'amount must be a positive number of cents');
  return request.amount;
}

/** An AbortSignal that fires when the core cancels the call or its deadline passes (grpc-js cancels it then). */
function abortSignalOf(call: Call): AbortSignal {
  const controller = new AbortController();
  call.on('cancelled', () => controller.abort());
  return controller.signal;
}

/** gRPC status of a failure: the contract's mapping from the acquirer's failures; anything else is INTERNAL. */
function failureStatus(error: unknown): { code: status; details: string } {
  if (error instanceof GrpcStatusError) return { code: error.code, details: error.message };
  if (error instanceof PartnerFailure) {
    return { code: error.reason === 'unauthenticated' ? status.UNAUTHENTICATED : status.UNAVAILABLE, details: error.message };
  }
  // Never send an unexpected error's message: it may hold what the acquirer echoed (credentials, card data).
  console.error('unexpected adapter error', error instanceof Error ? error.name : typeof error);
  return { code: status.INTERNAL, details: 'Internal adapter error' };
}

function unary(handler: (request: Request, call: Call) => Promise<unknown>) {
  return (call: Call, callback: sendUnaryData<unknown>) => {
    handler(call.request, call).then(
      (response) => callback(null, response),
      (error: unknown) => callback(failureStatus(error)),
    );
  };
}

const operation = (answer: { kind: 'approved'; amount: number; operationId: string } | { kind: 'declined'; code: string; message: string }) =>
  answer.kind === 'approved'
    ? { outcome: 'APPROVED', rawCode: '00', message: 'Approved', amount: answer.amount, operationId: answer.operationId }
    : { outcome: 'DECLINED', rawCode: answer.code, message: answer.message, amount: 0, operationId: '' };

const references = (payment: CardPayment) => ({
  nsu: payment.nsu,
  tid: payment.tid,
  authorizationCode: payment.authorizationCode,
  acquirerPaymentId: payment.id,
});

const CARD_STATUS = { authorized: 'AUTHORIZED', captured: 'CAPTURED', voided: 'VOIDED' } as const;
const CHARGE_STATUS = { awaiting_payment: 'AWAITING_PAYMENT', paid: 'PAID', expired: 'EXPIRED', canceled: 'CANCELED' } as const;

function statusOf(record: CardPayment | Charge | undefined) {
  if (!record) return { status: 'NOT_FOUND', paidAmount: 0, paidAt: '', rawCode: 'payment_not_found' };
  if (record.kind === 'card') {
    return { status: CARD_STATUS[record.status], paidAmount: record.captured - record.refunded, paidAt: '', references: references(record), rawCode: '00' };
  }
  return {
    status: CHARGE_STATUS[record.status],
    paidAmount: record.status === 'paid' ? record.amount : 0,
    paidAt: record.paidAt ?? '',
    references: { acquirerPaymentId: record.id, nsu: '', tid: '', authorizationCode: '' },
    rawCode: '',
  };
}

export class TemplateAdapter {
  readonly partner = new PartnerAcquirer();
  /**
   * First answers by (rpc, merchant, idempotency key). In memory here, so lost on restart: a production adapter
   * relies on the acquirer's own idempotency (send the key as its reference) or keeps these answers in a store.
   */
  private readonly answers = new Map<string, Promise<unknown>>();

  /** Acts once per key; a failure is not an answer, so it is forgotten and a retry with the key acts. */
  private once<T>(rpc: string, credentials: PartnerCredentials, request: Request, act: () => Promise<T>): Promise<T> {
    if (!request.idempotencyKey) throw grpcError(status.INVALID_ARGUMENT, 'idempotency_key is required');
    const key = `${rpc}:${credentials.merchantId}:${request.idempotencyKey}`;
    const known = this.answers.get(key);
    if (known) return known as Promise<T>;
    const answer = act();
    this.answers.set(key, answer);
    answer.catch(() => this.answers.delete(key));
    return answer;
  }

  readonly service: UntypedServiceImplementation = {
    Describe: unary(async () => DESCRIPTION),

    VerifyCredentials: unary(async (request) => {
      const merchantId = request.credentials?.secrets?.['merchantId'];
      const apiKey = request.credentials?.secrets?.['apiKey'];
      if (!merchantId || !apiKey) return { result: 'INVALID', message: 'merchantId and apiKey are required' };
      const verdict = this.partner.verify({ merchantId, apiKey });
      return { result: verdict.toUpperCase(), message: verdict === 'valid' ? 'Credentials accepted' : `The acquirer answered ${verdict}` };
    }),

    Authorize: unary(async (request, call) => {
      assertWithinDeadline(call);
      const credentials = credentialsOf(request);
      const token = tokenOf(request);
      const amount = positiveAmount(request);
      return this.once('Authorize', credentials, request, async () => {
        const answer = await this.partner.authorize(
          credentials,
          { reference: request.idempotencyKey!, token, amount, capture: Boolean(request.capture), threeDsAuthenticationId: request.threeDsAuthenticationId ?? '' },
          abortSignalOf(call),
          () => assertWithinDeadline(call),
        );
        if (answer.kind === 'declined') return { outcome: 'DECLINED', rawCode: answer.code, message: answer.message, capturedAmount: 0 };
        if (answer.kind === 'challenge') {
          return { outcome: 'PENDING_ACTION', message: '3-D Secure authentication required', nextAction: { type: 'three_ds', url: answer.url } };
        }
        return { outcome: 'APPROVED', rawCode: '00', message: 'Approved', references: references(answer), capturedAmount: answer.captured };
      });
    }),

    Capture: unary(async (request, call) => {
      assertWithinDeadline(call);
      const credentials = credentialsOf(request);
      return this.once('Capture', credentials, request, async () =>
        operation(this.partner.capture(credentials, request.acquirerPaymentId ?? '', request.amount ?? 0, () => assertWithinDeadline(call))),
      );
    }),

    Void: unary(async (request, call) => {
      assertWithinDeadline(call);
      const credentials = credentialsOf(request);
      return this.once('Void', credentials, request, async () =>
        operation(this.partner.void(credentials, request.acquirerPaymentId ?? '', () => assertWithinDeadline(call))),
      );
    }),

    Refund: unary(async (request, call) => {
      assertWithinDeadline(call);
      const credentials = credentialsOf(request);
      return this.once('Refund', credentials, request, async () =>
        operation(this.partner.refund(credentials, request.acquirerPaymentId ?? '', request.amount ?? 0, () => assertWithinDeadline(call))),
      );
    }),

    ZeroAuth: unary(async (request, call) => {
      assertWithinDeadline(call);
      const credentials = credentialsOf(request);
      const answer = await this.partner.zeroAuth(credentials, tokenOf(request), abortSignalOf(call));
      return answer.kind === 'declined'
        ? { outcome: 'DECLINED', rawCode: answer.code, message: answer.message }
        : { outcome: 'APPROVED', rawCode: '00', message: 'Card verified' };
    }),

    CreatePixCharge: unary(async (request, call) => {
      assertWithinDeadline(call);
      const credentials = credentialsOf(request);
      const amount = positiveAmount(request);
      return this.once('CreatePixCharge', credentials, request, async () => {
        const pix = this.partner.createPix(
          credentials,
          { reference: request.idempotencyKey!, amount, expiresInSeconds: request.expiresInSeconds ?? 0 },
          () => assertWithinDeadline(call),
        );
        return { acquirerPaymentId: pix.id, status: 'AWAITING_PAYMENT', pixQrCode: pix.qrCode, expiresAt: pix.expiresAt };
      });
    }),

    CreateBoleto: unary(async (request, call) => {
      assertWithinDeadline(call);
      const credentials = credentialsOf(request);
      const amount = positiveAmount(request);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(request.dueDate ?? '')) throw grpcError(status.INVALID_ARGUMENT, 'due_date must be YYYY-MM-DD');
      return this.once('CreateBoleto', credentials, request, async () => {
        const boleto = this.partner.createBoleto(
          credentials,
          { reference: request.idempotencyKey!, amount, dueDate: request.dueDate!, daysAfterDue: request.daysAfterDue ?? 0 },
          () => assertWithinDeadline(call),
        );
        return {
          acquirerPaymentId: boleto.id,
          status: 'AWAITING_PAYMENT',
          digitableLine: boleto.digitableLine,
          barcode: boleto.barcode,
          pdfUrl: `https://boletos.acquirer.example/${boleto.id}.pdf`,
          expiresAt: boleto.expiresAt,
        };
      });
    }),

    // A read: no effect, so no deadline check is needed, and an unknown payment is NOT_FOUND, never an error.
    QueryCharge: unary(async (request) => {
      const credentials = credentialsOf(request);
      if (!request.acquirerPaymentId && !request.idempotencyKey) throw grpcError(status.INVALID_ARGUMENT, 'acquirer_payment_id or idempotency_key is required');
      return statusOf(this.partner.find(credentials, { id: request.acquirerPaymentId ?? '', reference: request.idempotencyKey ?? '' }));
    }),

    CancelCharge: unary(async (request, call) => {
      assertWithinDeadline(call);
      return statusOf(this.partner.cancelCharge(credentialsOf(request), request.acquirerPaymentId ?? ''));
    }),

    CreateTokenizationSession: unary(async (request, call) => {
      assertWithinDeadline(call);
      const credentials = credentialsOf(request);
      if (!request.clientSecret) throw grpcError(status.INVALID_ARGUMENT, 'client_secret is required: the vault checks it');
      const session = this.partner.tokenizationSession(credentials, request.ttlSeconds && request.ttlSeconds > 0 ? request.ttlSeconds : 900);
      return { sessionId: session.id, tokenizeUrl: session.url, expiresAt: session.expiresAt };
    }),

    Authenticate3ds: unary(async (request, call) => {
      assertWithinDeadline(call);
      const credentials = credentialsOf(request);
      const answer = await this.partner.authenticate3ds(credentials, { token: tokenOf(request), authenticationId: request.authenticationId ?? '' }, abortSignalOf(call));
      return answer.status === 'challenge'
        ? { status: 'CHALLENGE_REQUIRED', authenticationId: answer.id, challengeUrl: answer.url }
        : { status: 'AUTHENTICATED', authenticationId: answer.id, eci: answer.eci, cavv: answer.cavv };
    }),
  };
}
