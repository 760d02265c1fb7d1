import type {
  ConnectorCredentials,
  ConnectorDescription,
  VerifyCredentialsInput,
  VerifyCredentialsOutput,
} from './connector-description';

/** A card as the acquirer sees it: a vault token or a network token, never a card number. */
export type PaymentSource =
  | {
      readonly type: 'card';
      readonly token: string;
      readonly brand?: string;
      readonly bin?: string;
      readonly last4?: string;
      readonly expMonth?: number;
      readonly expYear?: number;
      readonly holderName?: string;
    }
  | {
      readonly type: 'network_token';
      readonly token: string;
      readonly cryptogram?: string;
      readonly brand?: string;
      readonly expMonth?: number;
      readonly expYear?: number;
    };

export type MitType =
  | 'recurring'
  | 'installment'
  | 'unscheduled'
  | 'reauthorization'
  | 'resubmission'
  | 'delayed_charge'
  | 'incremental'
  | 'no_show';

export interface AcquirerAddress {
  readonly postalCode?: string;
  readonly line1?: string;
  readonly streetNumber?: string;
  readonly complement?: string;
  readonly neighborhood?: string;
  readonly city?: string;
  readonly state?: string;
  readonly country?: string;
}

export interface AcquirerCustomer {
  readonly id?: string;
  readonly name?: string;
  readonly email?: string;
  readonly document?: string;
  readonly phone?: string;
  readonly birthDate?: string;
  readonly billingAddress?: AcquirerAddress;
  readonly shippingAddress?: AcquirerAddress;
}

export interface AcquirerItem {
  readonly sku?: string;
  readonly name: string;
  readonly quantity: number;
  /** Unit price in minor units. */
  readonly amount: number;
}

export interface AcquirerFraudData {
  readonly fingerprintSessionId?: string;
  readonly clientIp?: string;
  readonly clientUserAgent?: string;
  readonly deviceId?: string;
  readonly shippingMethod?: string;
  readonly isGift?: boolean;
  readonly returnsAccepted?: boolean;
  readonly merchantDefinedFields?: Readonly<Record<string, string>>;
  /** Run the acquirer's own antifraud analysis inside the authorization. */
  readonly analysisEnabled?: boolean;
}

export interface AcquirerSplit {
  readonly recipientId: string;
  readonly amount: number;
  readonly liableForChargeback?: boolean;
  readonly chargeProcessingFee?: boolean;
}

export interface AuthorizeInput {
  readonly credentials: ConnectorCredentials;
  /** The attempt id: a retry with the same key acts once at the acquirer. */
  readonly idempotencyKey: string;
  readonly paymentId: string;
  readonly source: PaymentSource;
  /** Minor units. */
  readonly amount: number;
  readonly currency: string;
  /** true: authorize and capture in one call. */
  readonly capture: boolean;
  readonly installments?: number;
  readonly initiator?: 'customer' | 'merchant';
  readonly mitType?: MitType;
  readonly softDescriptor?: string;
  readonly customer?: AcquirerCustomer;
  readonly items?: readonly AcquirerItem[];
  readonly fraudData?: AcquirerFraudData;
  readonly splits?: readonly AcquirerSplit[];
  readonly threeDsAuthenticationId?: string;
  /** The cardholder's 3DS authentication, sent with the authorization and never stored by the core. */
  readonly threeDs?: ThreeDsAuthentication;
}

/**
 * What a 3-D Secure authentication proves, as the acquirer takes it with the authorization (proto AuthorizeRequest
 * three_ds_*). CAVV and XID are authentication values: passed through in memory, never saved, logged or returned.
 */
export interface ThreeDsAuthentication {
  /** The 3DS server's reference of the authentication (three_ds_authentication_id). */
  readonly authenticationId: string;
  readonly eci: string;
  readonly cavv?: string;
  readonly xid?: string;
  /** The 3DS protocol version, e.g. 2.2.0. */
  readonly version?: string;
}

/** Acquirer-side identifiers of an authorization (searchable by merchants; used for later operations). */
export interface AcquirerReferences {
  readonly nsu?: string;
  readonly tid?: string;
  readonly authorizationCode?: string;
  readonly acquirerPaymentId: string;
}

/** The acquirer's own antifraud analysis inside an authorization (AcquirerFraudData.analysisEnabled asked for it). */
export interface AcquirerFraudAnalysis {
  readonly provider: string;
  /** accept, reject, review, unfinished, provider_error, aborted, unknown or skipped (as the acquirer reports it). */
  readonly providerStatus: string;
  /** 0 to 100, or null when the provider gave none. */
  readonly score: number | null;
  readonly triggeredRules: readonly string[];
}

export type AuthorizeOutput =
  | {
      readonly status: 'approved';
      readonly rawCode: string;
      readonly message: string;
      readonly references: AcquirerReferences;
      /** The acquirer holds the sale in its fraud review; the decision arrives later. */
      readonly fraudReviewPending: boolean;
      /** Amount captured by this call (capture true), else 0. */
      readonly capturedAmount: number;
      readonly fraudAnalysis?: AcquirerFraudAnalysis;
    }
  | { readonly status: 'declined'; readonly rawCode: string; readonly message: string; readonly fraudAnalysis?: AcquirerFraudAnalysis }
  | {
      readonly status: 'pending_action';
      readonly action: { readonly type: string; readonly url?: string };
      readonly references?: AcquirerReferences;
      readonly rawCode: string;
      readonly message: string;
    };

interface AcquirerOperationInput {
  readonly credentials: ConnectorCredentials;
  readonly idempotencyKey: string;
  readonly acquirerPaymentId: string;
}

export interface CaptureInput extends AcquirerOperationInput {
  readonly amount: number;
}

export interface VoidInput extends AcquirerOperationInput {
  /** Omitted: the whole authorization. */
  readonly amount?: number;
}

export interface RefundInput extends AcquirerOperationInput {
  readonly amount: number;
}

/** Answer of capture, void and refund: done, or refused by the acquirer (e.g. amount above what is left). */
export type OperationOutput =
  | { readonly status: 'approved'; readonly amount: number; readonly operationId: string; readonly rawCode: string }
  | { readonly status: 'declined'; readonly rawCode: string; readonly message: string };

export interface ZeroAuthInput {
  readonly credentials: ConnectorCredentials;
  readonly idempotencyKey: string;
  readonly source: PaymentSource;
}

export type ZeroAuthOutput =
  | { readonly status: 'approved'; readonly rawCode: string }
  | { readonly status: 'declined'; readonly rawCode: string; readonly message: string };

export interface CreatePixChargeInput {
  readonly credentials: ConnectorCredentials;
  readonly idempotencyKey: string;
  readonly paymentId: string;
  readonly amount: number;
  /** 60 to 604800 (spec: Pix expiry). */
  readonly expiresInSeconds: number;
  readonly customer?: AcquirerCustomer;
  readonly description?: string;
}

export interface CreateBoletoInput {
  readonly credentials: ConnectorCredentials;
  readonly idempotencyKey: string;
  readonly paymentId: string;
  readonly amount: number;
  /** YYYY-MM-DD. */
  readonly dueDate: string;
  readonly daysAfterDue?: number;
  readonly instructions?: string;
  readonly fineBps?: number;
  readonly interestMonthlyBps?: number;
  readonly customer?: AcquirerCustomer;
}

export type ChargeStatus =
  | 'awaiting_payment'
  | 'paid'
  | 'expired'
  | 'canceled'
  | 'authorized'
  | 'captured'
  | 'voided'
  | 'declined'
  | 'not_found';

/** A Pix or boleto charge as issued: what the payer needs to pay it. */
export interface ChargeOutput {
  readonly acquirerPaymentId: string;
  readonly status: ChargeStatus;
  readonly pix?: { readonly qrCode: string };
  readonly boleto?: { readonly digitableLine: string; readonly barcode: string; readonly pdfUrl: string };
  /** ISO 8601, or null when the acquirer gave none. */
  readonly expiresAt: string | null;
}

export interface QueryChargeInput {
  readonly credentials: ConnectorCredentials;
  /** One of the two: the acquirer's id, or the idempotency key of the request that created it. */
  readonly acquirerPaymentId?: string;
  readonly idempotencyKey?: string;
}

/** What the acquirer says about a charge or card payment now (checks inbound notices, resolves unknown outcomes). */
export interface ChargeStatusOutput {
  readonly status: ChargeStatus;
  readonly paidAmount: number;
  readonly paidAt: string | null;
  readonly references?: AcquirerReferences;
  readonly rawCode: string;
}

export interface CancelChargeInput {
  readonly credentials: ConnectorCredentials;
  readonly idempotencyKey: string;
  readonly acquirerPaymentId: string;
}

export interface TokenizationSessionInput {
  readonly credentials: ConnectorCredentials;
  readonly paymentId: string;
  /** The payment's client secret; the browser presents it to the vault, which refuses other callers. */
  readonly clientSecret: string;
  readonly ttlSeconds?: number;
}

export interface TokenizationSessionOutput {
  readonly sessionId: string;
  readonly tokenizeUrl: string;
  readonly expiresAt: string;
}

export interface Authenticate3dsInput {
  readonly credentials: ConnectorCredentials;
  readonly idempotencyKey: string;
  readonly paymentId: string;
  readonly card: Extract<PaymentSource, { type: 'card' }>;
  readonly amount: number;
  readonly currency: string;
  /** Set when resuming after the cardholder completed a challenge. */
  readonly authenticationId?: string;
  readonly browser?: Readonly<Record<string, unknown>>;
}

export type Authenticate3dsOutput =
  | { readonly status: 'authenticated'; readonly authenticationId: string; readonly eci: string; readonly cavv: string }
  | { readonly status: 'challenge_required'; readonly authenticationId: string; readonly challengeUrl: string }
  | { readonly status: 'failed'; readonly authenticationId: string }
  | { readonly status: 'unavailable' };

/**
 * One acquirer connector as the core sees it (implemented over gRPC by `GrpcAcquirerGateway`).
 *
 * Contract:
 *  - an issuer or acquirer refusal is returned as data (`status: 'declined'` with the acquirer's rawCode);
 *  - anything else that is not an answer is thrown as `ConnectorFailure` (domain/shared/connector-failure):
 *    kind 'technical' or 'timeout', with `outcomeUnknown` when the acquirer may have acted;
 *  - every money-moving call carries an idempotency key (the attempt id); repeating it repeats the answer;
 *  - never call it inside a database transaction.
 */
export interface AcquirerGateway {
  /** Who the adapter is; no credentials needed. */
  describe(): Promise<ConnectorDescription>;
  /** Light call to the acquirer; changes nothing. */
  verifyCredentials(input: VerifyCredentialsInput): Promise<VerifyCredentialsOutput>;
  /** Authorizes (or authorizes and captures) an amount on a card. */
  authorize(input: AuthorizeInput): Promise<AuthorizeOutput>;
  /** Captures all or part of an authorization. */
  capture(input: CaptureInput): Promise<OperationOutput>;
  /** Cancels an uncaptured authorization. */
  void(input: VoidInput): Promise<OperationOutput>;
  /** Returns all or part of a captured amount. */
  refund(input: RefundInput): Promise<OperationOutput>;
  /** Validates a card without charging it. */
  zeroAuth(input: ZeroAuthInput): Promise<ZeroAuthOutput>;
  /** Issues a Pix charge (BR Code); payment is confirmed later (notice or queryCharge). */
  createPixCharge(input: CreatePixChargeInput): Promise<ChargeOutput>;
  /** Registers a boleto; payment is confirmed later like Pix. */
  createBoleto(input: CreateBoletoInput): Promise<ChargeOutput>;
  /** Current status of a charge or card payment, by acquirer id or by the idempotency key that created it. */
  queryCharge(input: QueryChargeInput): Promise<ChargeStatusOutput>;
  /** Removes an unpaid Pix charge or writes off a boleto; a payer who just paid comes back as status paid. */
  cancelCharge(input: CancelChargeInput): Promise<ChargeStatusOutput>;
  /** Opens a browser tokenization session; a provider without one fails with transportCode FAILED_PRECONDITION. */
  createTokenizationSession(input: TokenizationSessionInput): Promise<TokenizationSessionOutput>;
  /** Runs or resumes 3-D Secure authentication. */
  authenticate3ds(input: Authenticate3dsInput): Promise<Authenticate3dsOutput>;
}

/**
 * Test-only control of the service's own sandbox acquirer: plays the bank for `POST /v1/payments/{id}/simulate`.
 * `applied` is false when the charge was not awaiting payment (nothing changed).
 */
export interface SandboxChargeSimulator {
  simulateCharge(input: {
    readonly credentials: ConnectorCredentials;
    readonly acquirerPaymentId: string;
    readonly outcome: 'paid' | 'expired';
  }): Promise<{ readonly applied: boolean; readonly charge: ChargeStatusOutput }>;
}
