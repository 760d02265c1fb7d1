import type {
  AcquirerCustomer,
  AcquirerFraudAnalysis,
  AcquirerGateway,
  AcquirerReferences,
  Authenticate3dsInput,
  Authenticate3dsOutput,
  AuthorizeInput,
  CancelChargeInput,
  ChargeOutput,
  ChargeStatus as DomainChargeStatus,
  ChargeStatusOutput,
  CreateBoletoInput,
  CreatePixChargeInput,
  QueryChargeInput,
  SandboxChargeSimulator,
  TokenizationSessionInput,
  TokenizationSessionOutput,
  AuthorizeOutput,
  CaptureInput,
  MitType as DomainMitType,
  OperationOutput,
  PaymentSource,
  RefundInput,
  VoidInput,
  ZeroAuthInput,
  ZeroAuthOutput,
} from '../../domain/ports/acquirer-gateway';
import type {
  ConnectorDescription,
  VerifyCredentialsInput,
  VerifyCredentialsOutput,
} from '../../domain/ports/connector-description';
import { ConnectorFailure } from '../../domain/shared/connector-failure';
import {
  AcquirerConnectorClient,
  Authenticate3dsResponse_Status,
  ChargeStatus,
  Initiator,
  MitType,
  Outcome,
  type AcquirerFraudAnalysis as ProtoFraudAnalysis,
  type AcquirerReferences as ProtoReferences,
  type AuthorizeRequest,
  type ChargeResponse,
  type ChargeStatusResponse,
  type Customer as ProtoCustomer,
  type OperationResponse,
} from './generated/connector/v1/connector';
import { SandboxControlClient, SimulateChargeRequest_Outcome } from './generated/connector/v1/sandbox';
import { createGrpcClient } from './grpc-client';
import {
  DEFAULT_CONNECTOR_DEADLINE_MS,
  connectorCall,
  fromProtoDescription,
  fromProtoVerify,
  toProtoCredentials,
} from './grpc-connector.mapping';

export interface GrpcAcquirerGatewayOptions {
  /** Per-call deadline in ms (default 5000). */
  readonly deadlineMs?: number;
  /** Slug the adapter is configured under, for failure messages before Describe ran. */
  readonly slug?: string;
}

const MIT_TYPES: Record<DomainMitType, MitType> = {
  recurring: MitType.RECURRING,
  installment: MitType.INSTALLMENT,
  unscheduled: MitType.UNSCHEDULED,
  reauthorization: MitType.REAUTHORIZATION,
  resubmission: MitType.RESUBMISSION,
  delayed_charge: MitType.DELAYED_CHARGE,
  incremental: MitType.INCREMENTAL,
  no_show: MitType.NO_SHOW,
};

function toProtoSource(source: PaymentSource): AuthorizeRequest['source'] {
  if (source.type === 'card') {
    return {
      $case: 'card',
      card: {
        token: source.token,
        brand: source.brand ?? '',
        bin: source.bin ?? '',
        last4: source.last4 ?? '',
        expMonth: source.expMonth ?? 0,
        expYear: source.expYear ?? 0,
        holderName: source.holderName ?? '',
      },
    };
  }
  return {
    $case: 'networkToken',
    networkToken: {
      token: source.token,
      cryptogram: source.cryptogram ?? '',
      brand: source.brand ?? '',
      expMonth: source.expMonth ?? 0,
      expYear: source.expYear ?? 0,
    },
  };
}

function fromProtoReferences(references: ProtoReferences | undefined): AcquirerReferences {
  const refs: { -readonly [K in keyof AcquirerReferences]: AcquirerReferences[K] } = {
    acquirerPaymentId: references?.acquirerPaymentId ?? '',
  };
  if (references?.nsu) refs.nsu = references.nsu;
  if (references?.tid) refs.tid = references.tid;
  if (references?.authorizationCode) refs.authorizationCode = references.authorizationCode;
  return refs;
}

/**
 * AcquirerGateway over the AcquirerConnector gRPC contract: one instance per configured adapter address.
 * Every call carries the gateway's deadline; a decline is returned, a failure thrown as ConnectorFailure.
 */
export class GrpcAcquirerGateway implements AcquirerGateway, SandboxChargeSimulator {
  private readonly client: AcquirerConnectorClient;
  private control: SandboxControlClient | undefined;
  private readonly address: string | undefined;
  private readonly deadlineMs: number;
  private readonly slug: string | undefined;

  constructor(target: string | AcquirerConnectorClient, options: GrpcAcquirerGatewayOptions = {}) {
    this.client = typeof target === 'string' ? createGrpcClient(AcquirerConnectorClient, target) : target;
    this.address = typeof target === 'string' ? target : undefined;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_CONNECTOR_DEADLINE_MS;
    this.slug = options.slug;
  }

  close(): void {
    this.client.close();
    this.control?.close();
  }

  async describe(): Promise<ConnectorDescription> {
    const response = await this.call(this.client.describe, {}, 'Describe');
    return fromProtoDescription(response, 'acquirer');
  }

  async verifyCredentials(input: VerifyCredentialsInput): Promise<VerifyCredentialsOutput> {
    const response = await this.call(this.client.verifyCredentials, { credentials: toProtoCredentials(input.credentials) }, 'VerifyCredentials');
    return fromProtoVerify(response);
  }

  async authorize(input: AuthorizeInput): Promise<AuthorizeOutput> {
    const request: AuthorizeRequest = {
      credentials: toProtoCredentials(input.credentials),
      idempotencyKey: input.idempotencyKey,
      paymentId: input.paymentId,
      source: toProtoSource(input.source),
      amount: input.amount,
      currency: input.currency,
      capture: input.capture,
      installments: input.installments ?? 1,
      initiator: input.initiator === 'merchant' ? Initiator.MERCHANT : Initiator.CUSTOMER,
      mitType: input.mitType ? MIT_TYPES[input.mitType] : MitType.MIT_TYPE_UNSPECIFIED,
      softDescriptor: input.softDescriptor ?? '',
      items: (input.items ?? []).map((item) => ({
        sku: item.sku ?? '',
        name: item.name,
        quantity: item.quantity,
        amount: item.amount,
      })),
      splits: (input.splits ?? []).map((split) => ({
        recipientId: split.recipientId,
        amount: split.amount,
        liableForChargeback: split.liableForChargeback ?? false,
        chargeProcessingFee: split.chargeProcessingFee ?? false,
      })),
      threeDsAuthenticationId: input.threeDs?.authenticationId ?? input.threeDsAuthenticationId ?? '',
      threeDsEci: input.threeDs?.eci ?? '',
      threeDsCavv: input.threeDs?.cavv ?? '',
      threeDsXid: input.threeDs?.xid ?? '',
      threeDsVersion: input.threeDs?.version ?? '',
    };
    if (input.customer) request.customer = toProtoCustomer(input.customer);
    if (input.fraudData) {
      const f = input.fraudData;
      request.fraudData = {
        fingerprintSessionId: f.fingerprintSessionId ?? '',
        clientIp: f.clientIp ?? '',
        clientUserAgent: f.clientUserAgent ?? '',
        deviceId: f.deviceId ?? '',
        shippingMethod: f.shippingMethod ?? '',
        isGift: f.isGift ?? false,
        returnsAccepted: f.returnsAccepted ?? false,
        merchantDefinedFields: { ...(f.merchantDefinedFields ?? {}) },
        analysisEnabled: f.analysisEnabled ?? false,
      };
    }
    const response = await this.call(this.client.authorize, request, 'Authorize');
    switch (response.outcome) {
      case Outcome.APPROVED:
        return {
          status: 'approved',
          rawCode: response.rawCode,
          message: response.message,
          references: fromProtoReferences(response.references),
          fraudReviewPending: response.fraudReviewPending,
          capturedAmount: response.capturedAmount,
          ...fromProtoFraudAnalysis(response.fraudAnalysis),
        };
      case Outcome.DECLINED:
        return { status: 'declined', rawCode: response.rawCode, message: response.message, ...fromProtoFraudAnalysis(response.fraudAnalysis) };
      case Outcome.PENDING_ACTION:
        return {
          status: 'pending_action',
          action: { type: response.nextAction?.type || 'three_ds', ...(response.nextAction?.url ? { url: response.nextAction.url } : {}) },
          ...(response.references ? { references: fromProtoReferences(response.references) } : {}),
          rawCode: response.rawCode,
          message: response.message,
        };
      default:
        throw this.unrecognized('Authorize', response.outcome);
    }
  }

  async capture(input: CaptureInput): Promise<OperationOutput> {
    const response = await this.call(this.client.capture, {
      credentials: toProtoCredentials(input.credentials),
      idempotencyKey: input.idempotencyKey,
      acquirerPaymentId: input.acquirerPaymentId,
      amount: input.amount,
    }, 'Capture');
    return this.operation('Capture', response);
  }

  async void(input: VoidInput): Promise<OperationOutput> {
    const response = await this.call(this.client.void, {
      credentials: toProtoCredentials(input.credentials),
      idempotencyKey: input.idempotencyKey,
      acquirerPaymentId: input.acquirerPaymentId,
      amount: input.amount ?? 0,
    }, 'Void');
    return this.operation('Void', response);
  }

  async refund(input: RefundInput): Promise<OperationOutput> {
    const response = await this.call(this.client.refund, {
      credentials: toProtoCredentials(input.credentials),
      idempotencyKey: input.idempotencyKey,
      acquirerPaymentId: input.acquirerPaymentId,
      amount: input.amount,
    }, 'Refund');
    return this.operation('Refund', response);
  }

  async zeroAuth(input: ZeroAuthInput): Promise<ZeroAuthOutput> {
    const response = await this.call(this.client.zeroAuth, {
      credentials: toProtoCredentials(input.credentials),
      idempotencyKey: input.idempotencyKey,
      source: toProtoSource(input.source),
    }, 'ZeroAuth');
    if (response.outcome === Outcome.APPROVED) return { status: 'approved', rawCode: response.rawCode };
    if (response.outcome === Outcome.DECLINED) return { status: 'declined', rawCode: response.rawCode, message: response.message };
    throw this.unrecognized('ZeroAuth', response.outcome);
  }

  async createPixCharge(input: CreatePixChargeInput): Promise<ChargeOutput> {
    const response = await this.call(this.client.createPixCharge, {
      credentials: toProtoCredentials(input.credentials),
      idempotencyKey: input.idempotencyKey,
      paymentId: input.paymentId,
      amount: input.amount,
      expiresInSeconds: input.expiresInSeconds,
      description: input.description ?? '',
      ...(input.customer ? { customer: toProtoCustomer(input.customer) } : {}),
    }, 'CreatePixCharge');
    return fromProtoCharge(response);
  }

  async createBoleto(input: CreateBoletoInput): Promise<ChargeOutput> {
    const response = await this.call(this.client.createBoleto, {
      credentials: toProtoCredentials(input.credentials),
      idempotencyKey: input.idempotencyKey,
      paymentId: input.paymentId,
      amount: input.amount,
      dueDate: input.dueDate,
      daysAfterDue: input.daysAfterDue ?? 0,
      instructions: input.instructions ?? '',
      fineBps: input.fineBps ?? 0,
      interestMonthlyBps: input.interestMonthlyBps ?? 0,
      ...(input.customer ? { customer: toProtoCustomer(input.customer) } : {}),
    }, 'CreateBoleto');
    return fromProtoCharge(response);
  }

  async queryCharge(input: QueryChargeInput): Promise<ChargeStatusOutput> {
    const response = await this.call(this.client.queryCharge, {
      credentials: toProtoCredentials(input.credentials),
      acquirerPaymentId: input.acquirerPaymentId ?? '',
      idempotencyKey: input.idempotencyKey ?? '',
    }, 'QueryCharge');
    return fromProtoChargeStatus(response);
  }

  async cancelCharge(input: CancelChargeInput): Promise<ChargeStatusOutput> {
    const response = await this.call(this.client.cancelCharge, {
      credentials: toProtoCredentials(input.credentials),
      idempotencyKey: input.idempotencyKey,
      acquirerPaymentId: input.acquirerPaymentId,
    }, 'CancelCharge');
    return fromProtoChargeStatus(response);
  }

  async createTokenizationSession(input: TokenizationSessionInput): Promise<TokenizationSessionOutput> {
    const response = await this.call(this.client.createTokenizationSession, {
      credentials: toProtoCredentials(input.credentials),
      paymentId: input.paymentId,
      ttlSeconds: input.ttlSeconds ?? 0,
      clientSecret: input.clientSecret,
    }, 'CreateTokenizationSession');
    return { sessionId: response.sessionId, tokenizeUrl: response.tokenizeUrl, expiresAt: response.expiresAt };
  }

  async authenticate3ds(input: Authenticate3dsInput): Promise<Authenticate3dsOutput> {
    const source = toProtoSource(input.card);
    const response = await this.call(this.client.authenticate3Ds, {
      credentials: toProtoCredentials(input.credentials),
      idempotencyKey: input.idempotencyKey,
      paymentId: input.paymentId,
      ...(source?.$case === 'card' ? { card: source.card } : {}),
      amount: input.amount,
      currency: input.currency,
      authenticationId: input.authenticationId ?? '',
      browserJson: input.browser ? JSON.stringify(input.browser) : '',
    }, 'Authenticate3ds');
    switch (response.status) {
      case Authenticate3dsResponse_Status.AUTHENTICATED:
        return { status: 'authenticated', authenticationId: response.authenticationId, eci: response.eci, cavv: response.cavv };
      case Authenticate3dsResponse_Status.CHALLENGE_REQUIRED:
        return { status: 'challenge_required', authenticationId: response.authenticationId, challengeUrl: response.challengeUrl };
      case Authenticate3dsResponse_Status.FAILED:
        return { status: 'failed', authenticationId: response.authenticationId };
      default:
        return { status: 'unavailable' };
    }
  }

  /** Sandbox only (SandboxControl service on the same address); other adapters answer UNIMPLEMENTED. */
  async simulateCharge(input: {
    credentials: CreatePixChargeInput['credentials'];
    acquirerPaymentId: string;
    outcome: 'paid' | 'expired';
  }): Promise<{ applied: boolean; charge: ChargeStatusOutput }> {
    if (!this.address) throw new Error('simulateCharge needs a gateway created from an address');
    this.control ??= createGrpcClient(SandboxControlClient, this.address);
    const response = await connectorCall(
      this.control,
      this.control.simulateCharge,
      {
        credentials: toProtoCredentials(input.credentials),
        acquirerPaymentId: input.acquirerPaymentId,
        outcome: input.outcome === 'paid' ? SimulateChargeRequest_Outcome.PAID : SimulateChargeRequest_Outcome.EXPIRED,
      },
      this.deadlineMs,
      this.slug,
      'SimulateCharge',
    );
    return {
      applied: response.applied,
      charge: response.charge ? fromProtoChargeStatus(response.charge) : { status: 'not_found', paidAmount: 0, paidAt: null, rawCode: '' },
    };
  }

  /** One unary call to the adapter with this gateway's deadline, failures mapped to ConnectorFailure. */
  private call<Req, Res>(method: Parameters<typeof connectorCall<Req, Res>>[1], request: Req, rpc: string): Promise<Res> {
    return connectorCall<Req, Res>(this.client, method, request, this.deadlineMs, this.slug, rpc);
  }

  private operation(rpc: string, response: OperationResponse): OperationOutput {
    if (response.outcome === Outcome.APPROVED) {
      return { status: 'approved', amount: response.amount, operationId: response.operationId, rawCode: response.rawCode };
    }
    if (response.outcome === Outcome.DECLINED) return { status: 'declined', rawCode: response.rawCode, message: response.message };
    throw this.unrecognized(rpc, response.outcome);
  }

  /** An answer outside the contract: the adapter did respond, so the outcome is known to be unusable. */
  private unrecognized(rpc: string, outcome: Outcome): ConnectorFailure {
    return new ConnectorFailure('technical', `${rpc} answered an unrecognized outcome ${outcome}`, {
      ...(this.slug ? { connectorSlug: this.slug } : {}),
    });
  }
}

function address(a: NonNullable<NonNullable<AuthorizeInput['customer']>['billingAddress']>) {
  return {
    postalCode: a.postalCode ?? '',
    line1: a.line1 ?? '',
    streetNumber: a.streetNumber ?? '',
    complement: a.complement ?? '',
    neighborhood: a.neighborhood ?? '',
    city: a.city ?? '',
    state: a.state ?? '',
    country: a.country ?? '',
  };
}

function toProtoCustomer(c: AcquirerCustomer): ProtoCustomer {
  return {
    id: c.id ?? '',
    name: c.name ?? '',
    email: c.email ?? '',
    document: c.document ?? '',
    phone: c.phone ?? '',
    birthDate: c.birthDate ?? '',
    ...(c.billingAddress ? { billingAddress: address(c.billingAddress) } : {}),
    ...(c.shippingAddress ? { shippingAddress: address(c.shippingAddress) } : {}),
  };
}

const CHARGE_STATUSES: Partial<Record<ChargeStatus, DomainChargeStatus>> = {
  [ChargeStatus.AWAITING_PAYMENT]: 'awaiting_payment',
  [ChargeStatus.PAID]: 'paid',
  [ChargeStatus.EXPIRED]: 'expired',
  [ChargeStatus.CANCELED]: 'canceled',
  [ChargeStatus.AUTHORIZED]: 'authorized',
  [ChargeStatus.CAPTURED]: 'captured',
  [ChargeStatus.VOIDED]: 'voided',
  [ChargeStatus.DECLINED_CHARGE]: 'declined',
  [ChargeStatus.NOT_FOUND]: 'not_found',
};

function chargeStatusOf(status: ChargeStatus): DomainChargeStatus {
  const mapped = CHARGE_STATUSES[status];
  if (!mapped) throw new ConnectorFailure('technical', `The connector answered an unrecognized charge status ${status}`);
  return mapped;
}

function fromProtoCharge(response: ChargeResponse): ChargeOutput {
  return {
    acquirerPaymentId: response.acquirerPaymentId,
    status: chargeStatusOf(response.status),
    ...(response.pixQrCode ? { pix: { qrCode: response.pixQrCode } } : {}),
    ...(response.digitableLine
      ? { boleto: { digitableLine: response.digitableLine, barcode: response.barcode, pdfUrl: response.pdfUrl } }
      : {}),
    expiresAt: response.expiresAt || null,
  };
}

function fromProtoChargeStatus(response: ChargeStatusResponse): ChargeStatusOutput {
  return {
    status: chargeStatusOf(response.status),
    paidAmount: response.paidAmount,
    paidAt: response.paidAt || null,
    ...(response.references?.acquirerPaymentId ? { references: fromProtoReferences(response.references) } : {}),
    rawCode: response.rawCode,
  };
}

/** The acquirer's antifraud analysis, when it sent one (an empty provider status means none). */
function fromProtoFraudAnalysis(analysis: ProtoFraudAnalysis | undefined): { fraudAnalysis?: AcquirerFraudAnalysis } {
  if (!analysis || !analysis.providerStatus) return {};
  return {
    fraudAnalysis: {
      provider: analysis.provider,
      providerStatus: analysis.providerStatus,
      score: analysis.score ?? null,
      triggeredRules: [...analysis.triggeredRules],
    },
  };
}
