import type { Payment } from '../payment/payment';
import type { Transaction } from './transactor';

/**
 * Checkout payments found without a tenant: the browser names only the payment (its client secret proves the
 * rest), and the expiry job works across every organization.
 */
export interface CheckoutPayments {
  /** The payment with this id, whatever its organization (locked with `forUpdate`); null when none. */
  findById(tx: Transaction, paymentId: string, options?: { forUpdate?: boolean }): Promise<Payment | null>;
  /**
   * The payment with this id as committed, read outside any transaction (the browser's client secret check, on every
   * public request); reads asked at the same moment may share one statement. Null when none.
   */
  findCommitted(paymentId: string): Promise<Payment | null>;
  /**
   * Checkout payments still awaiting a card whose deadline is at or before `now`, locked for this transaction and
   * skipping rows another worker holds (FOR UPDATE SKIP LOCKED): each is canceled by exactly one worker.
   */
  claimExpired(tx: Transaction, now: Date, limit: number): Promise<Payment[]>;
}
