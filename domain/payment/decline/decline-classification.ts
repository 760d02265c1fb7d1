/** REVERSIBLE: the same card may succeed later or after a fix; irreversible: never retry this card for the sale. */
export type Reversibility = 'REVERSIBLE' | 'irreversible';

export const RETRY_ACTIONS = [
  'RETRY_NOW', // the issuer asked for the transaction again
  'RETRY_LATER', // temporary: funds, limits, issuer or network unavailable
  'RETRY_WITH_CORRECTED_DATA', // the buyer mistyped something (CVV, PIN, option, installments)
  'RETRY_WITH_AUTHENTICATION', // the issuer wants strong customer authentication (3DS) first
  'RETRY_WITH_ANOTHER_CARD', // this card will not pass; ask for another one
  'CONTACT_ISSUER', // the buyer must talk to the bank first (unlock, travel notice, fraud check)
  'CONTACT_ACQUIRER', // a merchant set-up problem at the acquirer
  'DO_NOT_RETRY', // never retry (lost, stolen, fraud, recurring payment revoked)
] as const;
export type RetryAction = (typeof RETRY_ACTIONS)[number];

export interface ConsumerMessage {
  readonly ptBR: string;
  readonly en: string;
}

/** One row of the canonical decline table. */
export interface DeclineClassification {
  readonly rawCode: string;
  /** approved codes (00, 11) live in the table so coverage and lookups are honest about them. */
  readonly approved: boolean;
  readonly reason: string;
  readonly label: string;
  readonly reversibility: Reversibility;
  readonly retryAction: RetryAction;
  readonly consumerMessage: ConsumerMessage;
  /** Which standard lists the code: ABECS (Normativo 21) or an acquirer code kept next to it (e.g. Amex de/para). */
  readonly source: 'abecs' | 'abecs_amex_mapping' | 'network' | 'fallback';
}
