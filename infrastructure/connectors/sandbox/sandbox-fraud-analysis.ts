import type { AcquirerFraudAnalysis, AuthorizeRequest } from '../../grpc/generated/connector/v1/connector';
import type { SandboxScenario } from './scenarios';

/** The provider the sandbox acquirer names for its own antifraud analysis. */
export const SANDBOX_FRAUD_PROVIDER = 'sandbox-acquirer-fraud';

/**
 * The sandbox acquirer's antifraud analysis inside an authorization, when the request asks for it
 * (fraud_data.analysis_enabled, which the core sets from the account's `antifraudEnabled` config). Deterministic, so
 * tests can count on it: like a real acquirer's provider it needs the customer's document and e-mail and is
 * skipped without them; otherwise a held fraud review reads as review, a stolen card as reject, the rest as accept.
 * Like a real provider it flags an analysis without the buyer's device (no fingerprint session id): the rule
 * device_fingerprint_missing, which changes no verdict.
 */
export function sandboxFraudAnalysis(request: AuthorizeRequest, scenario: SandboxScenario): AcquirerFraudAnalysis | undefined {
  if (!request.fraudData?.analysisEnabled) return undefined;
  const customer = request.customer;
  if (!customer?.document || !customer.email) {
    return { provider: SANDBOX_FRAUD_PROVIDER, providerStatus: 'skipped', triggeredRules: ['missing_customer_data'] };
  }
  const device = request.fraudData.fingerprintSessionId ? [] : ['device_fingerprint_missing'];
  if (scenario.kind === 'approved' && scenario.fraudReview) {
    return { provider: SANDBOX_FRAUD_PROVIDER, providerStatus: 'review', score: 61, triggeredRules: ['velocity_check', ...device] };
  }
  if (scenario.kind === 'declined' && scenario.rawCode === '43') {
    return { provider: SANDBOX_FRAUD_PROVIDER, providerStatus: 'reject', score: 97, triggeredRules: ['card_reported_stolen', ...device] };
  }
  return { provider: SANDBOX_FRAUD_PROVIDER, providerStatus: 'accept', score: 8, triggeredRules: device };
}
