import type { Environment } from '../shared/environment';

export interface CardPaymentContext {
  readonly organizationId: string;
  readonly environment: Environment;
  /** The payer's address and device as the payment request gave them; either may be absent. */
  readonly clientIp?: string | null;
  readonly deviceId?: string | null;
}

export interface CardOutcome extends CardPaymentContext {
  /** A stable fingerprint of the card (vault token, or a hash of BIN and last four); never the card number. */
  readonly cardFingerprint?: string | null;
  readonly declined: boolean;
}

/**
 * Card-testing protection the payment flow calls (contract.md section 7). Provided by the identity module as
 * service `securityGuard`. `checkCardPayment` throws DomainError `blocked_by_security_policy` (403) while an
 * incident blocks the payer's clientIp or deviceId; `recordCardOutcome` records an approved or declined card
 * attempt and opens incidents when a threshold is crossed. Call it outside the payment's transaction.
 */
export interface CardSecurity {
  checkCardPayment(context: CardPaymentContext): Promise<void>;
  recordCardOutcome(outcome: CardOutcome): Promise<unknown>;
}
