import { status } from '@grpc/grpc-js';
import {
  AntifraudConnectorService,
  Recommendation,
  type AnalyzeResponse,
  type AntifraudConnectorServer,
} from '../../grpc/generated/antifraud/v1/antifraud';
import { VerifyCredentialsResponse_Result, type Credentials } from '../../grpc/generated/connector/v1/connector';
import { assertWithinDeadline } from '../../grpc/call-deadline';
import { grpcError } from '../../grpc/grpc-errors';
import { startGrpcServer, unaryHandler } from '../../grpc/grpc-server';
import { sandboxId } from '../sandbox/sandbox-ledger';
import { SANDBOX_CREDENTIAL_SCHEMA, verificationForApiKey } from '../sandbox/scenarios';

export const SANDBOX_ANTIFRAUD_SLUG = 'sandbox-antifraud';

/**
 * The sandbox antifraud provider (contract.md section 5): the card token chooses the verdict,
 * `tok_sandbox_antifraud_review` -> review, `tok_sandbox_antifraud_decline` -> decline (optionally followed by
 * `_<suffix>`), anything else approve. Same credentials as the sandbox acquirer (merchantId, apiKey secret).
 */
/** Same credentials as the sandbox acquirer. */
export const SANDBOX_ANTIFRAUD_CREDENTIAL_SCHEMA = SANDBOX_CREDENTIAL_SCHEMA;

export const SANDBOX_ANTIFRAUD_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    reviewScoreThreshold: { type: 'integer', minimum: 0, maximum: 100, default: 60, title: 'Score from which to review' },
  },
  additionalProperties: false,
} as const;

export type SandboxAntifraudVerdict = 'approve' | 'review' | 'decline';

export function antifraudVerdictForToken(token: string): SandboxAntifraudVerdict {
  for (const verdict of ['review', 'decline'] as const) {
    const name = `tok_sandbox_antifraud_${verdict}`;
    if (token === name || token.startsWith(`${name}_`)) return verdict;
  }
  return 'approve';
}

const VERDICTS: Record<SandboxAntifraudVerdict, Omit<AnalyzeResponse, 'analysisId'>> = {
  approve: { recommendation: Recommendation.APPROVE, score: 12, hasScore: true, triggeredRules: [], providerStatus: 'accept' },
  review: {
    recommendation: Recommendation.REVIEW,
    score: 65,
    hasScore: true,
    triggeredRules: ['SANDBOX_REVIEW_TOKEN'],
    providerStatus: 'review',
  },
  decline: {
    recommendation: Recommendation.DECLINE,
    score: 97,
    hasScore: true,
    triggeredRules: ['SANDBOX_DECLINE_TOKEN', 'HIGH_RISK_SCORE'],
    providerStatus: 'reject',
  },
};

function authenticate(credentials: Credentials | undefined): string {
  const merchantId = credentials?.secrets['merchantId'] ?? '';
  const apiKey = credentials?.secrets['apiKey'] ?? '';
  if (!merchantId || !apiKey) throw grpcError(status.INVALID_ARGUMENT, 'Sandbox credentials need merchantId and apiKey');
  const verification = verificationForApiKey(apiKey);
  if (verification === 'invalid') throw grpcError(status.UNAUTHENTICATED, 'The sandbox antifraud provider refused the API key');
  if (verification === 'unreachable') throw grpcError(status.UNAVAILABLE, 'The sandbox antifraud provider could not be reached');
  return merchantId;
}

export function sandboxAntifraudService(): AntifraudConnectorServer {
  const answers = new Map<string, AnalyzeResponse>();
  return {
    describe: unaryHandler(async () => ({
      slug: SANDBOX_ANTIFRAUD_SLUG,
      name: 'Sandbox Antifraud',
      kind: 'antifraud',
      capabilities: ['antifraud', 'card'],
      credentialSchemaJson: JSON.stringify(SANDBOX_ANTIFRAUD_CREDENTIAL_SCHEMA),
      configSchemaJson: JSON.stringify(SANDBOX_ANTIFRAUD_CONFIG_SCHEMA),
      available: true,
    })),

    verifyCredentials: unaryHandler(async (request) => {
      const merchantId = request.credentials?.secrets['merchantId'] ?? '';
      const apiKey = request.credentials?.secrets['apiKey'] ?? '';
      if (!merchantId || !apiKey) return { result: VerifyCredentialsResponse_Result.INVALID, message: 'merchantId and apiKey are required' };
      switch (verificationForApiKey(apiKey)) {
        case 'invalid':
          return { result: VerifyCredentialsResponse_Result.INVALID, message: 'The sandbox antifraud provider refused the API key' };
        case 'unreachable':
          return { result: VerifyCredentialsResponse_Result.UNREACHABLE, message: 'The sandbox antifraud provider could not be reached' };
        default:
          return { result: VerifyCredentialsResponse_Result.VALID, message: 'Credentials accepted' };
      }
    }),

    // An analysis is recorded under its key (a repetition gets the same verdict): a call the core gave up on records
    // nothing (infrastructure/grpc/call-deadline.ts).
    analyze: unaryHandler(async (request, call) => {
      assertWithinDeadline(call);
      const merchantId = authenticate(request.credentials);
      const key = `${merchantId}\u0000${request.idempotencyKey}`;
      const known = request.idempotencyKey ? answers.get(key) : undefined;
      if (known) return known;
      const answer: AnalyzeResponse = { ...VERDICTS[antifraudVerdictForToken(request.card?.token ?? '')], analysisId: sandboxId('sbxaf') };
      if (request.idempotencyKey) answers.set(key, answer);
      return answer;
    }),
  };
}

export interface RunningSandboxAntifraud {
  readonly port: number;
  readonly address: string;
  /** Stops accepting calls and lets those in flight finish for up to `graceMs` (default 1 s), then cuts them. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts the sandbox antifraud provider as a gRPC server (AntifraudConnector + health) on a loopback port. */
export async function startSandboxAntifraud(options: { port?: number; host?: string } = {}): Promise<RunningSandboxAntifraud> {
  const running = await startGrpcServer({
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    services: [{ definition: AntifraudConnectorService, implementation: sandboxAntifraudService() }],
  });
  return { port: running.port, address: running.address, stop: (graceMs = 1_000) => running.stop(graceMs) };
}
