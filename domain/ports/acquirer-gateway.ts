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
}

/** Acquirer-side identifiers of an authorization (searchable by merchants; used for later operations). */
export interface AcquirerReferences {
  readonly nsu?: string;
  readonly tid?: string;
  readonly authorizationCode?: string;
  readonly acquirerPaymentId: string;
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
    }
  | { readonly status: 'declined'; readonly rawCode: string; readonly message: string }
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
}
