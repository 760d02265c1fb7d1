import type { AcquirerCustomer, AcquirerFraudData, AcquirerItem, PaymentSource } from './acquirer-gateway';
import type {
  ConnectorCredentials,
  ConnectorDescription,
  VerifyCredentialsInput,
  VerifyCredentialsOutput,
} from './connector-description';

export interface AnalyzeInput {
  readonly credentials: ConnectorCredentials;
  /** Repeating the key returns the first analysis. */
  readonly idempotencyKey: string;
  readonly paymentId: string;
  readonly amount: number;
  readonly currency: string;
  readonly methodType: string;
  readonly source?: Extract<PaymentSource, { type: 'card' }>;
  readonly customer?: AcquirerCustomer;
  readonly items?: readonly AcquirerItem[];
  readonly fraudData?: AcquirerFraudData;
}

export type AntifraudRecommendation = 'approve' | 'review' | 'decline' | 'error';

export interface AnalyzeOutput {
  /** 'error': the provider gave no verdict (skipped, unfinished, provider error); a flow follows its error exit. */
  readonly recommendation: AntifraudRecommendation;
  /** 0 to 100, or null when the provider gave none. */
  readonly score: number | null;
  readonly triggeredRules: readonly string[];
  readonly providerStatus: string;
  readonly analysisId: string;
}

/**
 * One antifraud provider as the core sees it (implemented over gRPC by `GrpcAntifraudGateway`).
 * A verdict, including "no verdict", is data; a provider that cannot be reached or does not answer in time is a
 * thrown `ConnectorFailure` (kind technical or timeout). Never call it inside a database transaction.
 */
export interface AntifraudGateway {
  /** Who the adapter is; no credentials needed. */
  describe(): Promise<ConnectorDescription>;
  /** Light call to the provider; changes nothing. */
  verifyCredentials(input: VerifyCredentialsInput): Promise<VerifyCredentialsOutput>;
  /** Scores one payment before authorization. */
  analyze(input: AnalyzeInput): Promise<AnalyzeOutput>;
}
