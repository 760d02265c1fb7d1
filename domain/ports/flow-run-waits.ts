import type { FlowWaitKind } from '../flow-run/flow-run';
import type { TenantScope } from '../shared/environment';
import type { AuthorizeRequest } from './payment-recovery';
import type { Transaction } from './transactor';

/**
 * A payment's flow run waiting for something other than an acquirer's answer (a 3DS result, a review decision, a
 * bank notice, a timer), as a durable row: what the run will send when it goes on (the authorization request, which
 * the payment does not keep), and when the wait falls due (a timer's moment, or the deadline of an input that may
 * never come). A due row is claimed by one worker at a time (lease), so a timer fires once across workers.
 */
export interface FlowRunWait {
  readonly paymentId: string;
  readonly scope: TenantScope;
  readonly kind: Exclude<FlowWaitKind, 'acquirer_outcome'>;
  readonly nodeId: string;
  /** A timer's moment, or the input's deadline; null: no deadline (a review). */
  readonly dueAt: Date | null;
  readonly request: AuthorizeRequest;
}

export interface ClaimedFlowRunWait extends Omit<FlowRunWait, 'request'> {
  readonly leaseOwner: string;
}

export interface FlowRunWaitRepository {
  /** Records (or replaces) the payment's wait, in the transaction that saves the run waiting. */
  park(tx: Transaction, wait: FlowRunWait, now: Date): Promise<void>;
  /** The payment's wait, if its run waits (locked with `forUpdate`). */
  find(tx: Transaction, scope: TenantScope, paymentId: string, options?: { forUpdate?: boolean }): Promise<FlowRunWait | null>;
  /** Ends the wait, in the transaction that resumes the run. */
  release(tx: Transaction, paymentId: string): Promise<void>;
  /**
   * Waits due at `now` not leased by another worker (SKIP LOCKED), oldest due first, leased to `leaseOwner`; only of
   * `kinds` when given. A bank_notice wait falls due to be polled (the bank asked whether the charge was paid), not to
   * expire: the bank-charge poller claims those (kinds ['bank_notice']) and a worker firing deadlines leaves them out.
   */
  claimDue(tx: Transaction, input: { now: Date; leaseOwner: string; leaseUntil: Date; limit: number; kinds?: readonly FlowRunWait['kind'][] }): Promise<ClaimedFlowRunWait[]>;
  /** Puts a claimed wait off until `dueAt` and frees its lease, if `leaseOwner` still holds it (false: it does not). */
  postpone(tx: Transaction, input: { paymentId: string; leaseOwner: string; dueAt: Date; now: Date }): Promise<boolean>;
}
