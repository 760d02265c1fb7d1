import type { AnalyzeInput, AnalyzeOutput, AntifraudGateway, AntifraudRecommendation } from '../../domain/ports/antifraud-gateway';
import type {
  ConnectorDescription,
  VerifyCredentialsInput,
  VerifyCredentialsOutput,
} from '../../domain/ports/connector-description';
import { AntifraudConnectorClient, Recommendation, type AnalyzeRequest } from './generated/antifraud/v1/antifraud';
import { createGrpcClient } from './grpc-client';
import {
  DEFAULT_CONNECTOR_DEADLINE_MS,
  connectorCall,
  fromProtoDescription,
  fromProtoVerify,
  toProtoCredentials,
} from './grpc-connector.mapping';

export interface GrpcAntifraudGatewayOptions {
  readonly deadlineMs?: number;
  readonly slug?: string;
}

const RECOMMENDATIONS: Partial<Record<Recommendation, AntifraudRecommendation>> = {
  [Recommendation.APPROVE]: 'approve',
  [Recommendation.REVIEW]: 'review',
  [Recommendation.DECLINE]: 'decline',
  [Recommendation.ERROR]: 'error',
};

/** AntifraudGateway over the AntifraudConnector gRPC contract, one instance per configured adapter address. */
export class GrpcAntifraudGateway implements AntifraudGateway {
  private readonly client: AntifraudConnectorClient;
  private readonly deadlineMs: number;
  private readonly slug: string | undefined;

  constructor(target: string | AntifraudConnectorClient, options: GrpcAntifraudGatewayOptions = {}) {
    this.client = typeof target === 'string' ? createGrpcClient(AntifraudConnectorClient, target) : target;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_CONNECTOR_DEADLINE_MS;
    this.slug = options.slug;
  }

  close(): void {
    this.client.close();
  }

  async describe(): Promise<ConnectorDescription> {
    const response = await connectorCall(this.client, this.client.describe, {}, this.deadlineMs, this.slug, 'Describe');
    return fromProtoDescription(response, 'antifraud');
  }

  async verifyCredentials(input: VerifyCredentialsInput): Promise<VerifyCredentialsOutput> {
    const response = await connectorCall(
      this.client,
      this.client.verifyCredentials,
      { credentials: toProtoCredentials(input.credentials) },
      this.deadlineMs,
      this.slug,
      'VerifyCredentials',
    );
    return fromProtoVerify(response);
  }

  async analyze(input: AnalyzeInput): Promise<AnalyzeOutput> {
    const request: AnalyzeRequest = {
      credentials: toProtoCredentials(input.credentials),
      idempotencyKey: input.idempotencyKey,
      paymentId: input.paymentId,
      amount: input.amount,
      currency: input.currency,
      methodType: input.methodType,
      items: (input.items ?? []).map((item) => ({ sku: item.sku ?? '', name: item.name, quantity: item.quantity, amount: item.amount })),
    };
    if (input.source) {
      request.card = {
        token: input.source.token,
        brand: input.source.brand ?? '',
        bin: input.source.bin ?? '',
        last4: input.source.last4 ?? '',
        expMonth: input.source.expMonth ?? 0,
        expYear: input.source.expYear ?? 0,
        holderName: input.source.holderName ?? '',
      };
    }
    if (input.customer) {
      request.customer = {
        id: input.customer.id ?? '',
        name: input.customer.name ?? '',
        email: input.customer.email ?? '',
        document: input.customer.document ?? '',
        phone: input.customer.phone ?? '',
        birthDate: input.customer.birthDate ?? '',
      };
    }
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
        analysisEnabled: false,
      };
    }
    const response = await connectorCall(this.client, this.client.analyze, request, this.deadlineMs, this.slug, 'Analyze');
    return {
      // An unrecognized verdict is no verdict: the flow's error exit is the safe reading.
      recommendation: RECOMMENDATIONS[response.recommendation] ?? 'error',
      score: response.hasScore ? response.score : null,
      triggeredRules: [...response.triggeredRules],
      providerStatus: response.providerStatus,
      analysisId: response.analysisId,
    };
  }
}
