/**
 * Transaction protection of one account. Limits are set by the platform team and apply to each account on
 * its own, whoever pays for it (a brand does not inherit its parent's counters). Card-testing thresholds are
 * the contract's defaults (contract.md section 7).
 */
export interface SecurityPolicy {
  readonly cardTesting: {
    readonly enabled: boolean;
    readonly windowSeconds: number;
    /** Declined card payments sharing one clientIp or deviceId inside the window. */
    readonly declinedThreshold: number;
    /** Distinct cards tried from one clientIp or deviceId inside the window. */
    readonly distinctCardsThreshold: number;
    /** What happens when an incident opens: new card payments from the signal are refused until unblocked. */
    readonly action: 'block';
  };
  readonly limits: {
    readonly maxPaymentAmount: number;
    readonly cardAttemptsPerCheckoutPayment: number;
  };
  readonly alerts: {
    readonly emailOnIncident: boolean;
  };
}

export const DEFAULT_SECURITY_POLICY: SecurityPolicy = {
  cardTesting: {
    enabled: true,
    windowSeconds: 600,
    declinedThreshold: 10,
    distinctCardsThreshold: 5,
    action: 'block',
  },
  limits: {
    maxPaymentAmount: 9_999_999_999,
    cardAttemptsPerCheckoutPayment: 3,
  },
  alerts: {
    emailOnIncident: true,
  },
};
