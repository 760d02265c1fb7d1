/**
 * An antifraud analysis registered on a payment (spec, payload rule 7). `origin` says who ran it: `acquirer` for the
 * analysis an acquirer runs inside the authorization (the account's `antifraudEnabled` config asks for it);
 * `flow_node` is the flow's antifraud node (domain/flow-run/flow-node-calls.ts), called before authorization.
 */
export interface AntifraudAssessment {
  id: string;
  origin: 'acquirer' | 'flow_node';
  /** The provider: the acquirer's for `acquirer`, the antifraud connector for `flow_node`. */
  provider: string;
  /** What the acquirer's provider answered (accept, reject, review, unfinished, provider_error, aborted, unknown, skipped); null for flow_node. */
  providerStatus: string | null;
  recommendation: AntifraudRecommendation;
  /** 0 to 100, or null. */
  score: number | null;
  triggeredRules: string[];
  connectorAccountId: string;
  createdAt: string;
}

export type AntifraudRecommendation = 'approve' | 'review' | 'decline' | 'error';

/**
 * The recommendation a provider status amounts to: accept approves, review reviews, reject declines; a status with no
 * decision (skipped for lack of customer data, unfinished, a provider error ...) reads as error (spec, rule 7).
 */
export function recommendationOf(providerStatus: string): AntifraudRecommendation {
  switch (providerStatus) {
    case 'accept':
      return 'approve';
    case 'review':
      return 'review';
    case 'reject':
      return 'decline';
    default:
      return 'error';
  }
}
