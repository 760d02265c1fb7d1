import type { FlowPaymentFacts } from '../flow/flow-rules';
import type { ManualRunOutcome, ManualRunStep } from '../flow-run/manual-run';
import type { TenantScope } from '../shared/environment';
import type { Transaction } from './transactor';

/** A manual flow run as recorded (docs/flows.md, "Manual runs"). */
export interface ManualFlowRun {
  readonly id: string;
  readonly organizationId: string;
  readonly environment: 'sandbox' | 'live';
  readonly flowId: string;
  readonly version: number;
  readonly paymentId: string | null;
  /** The facts the run decided on (the payment's, or the caller's input). */
  readonly facts: FlowPaymentFacts;
  readonly outcome: ManualRunOutcome;
  readonly steps: readonly ManualRunStep[];
  readonly variables: Readonly<Record<string, string | number | boolean | null>>;
  readonly createdAt: string;
}

/** Recorded manual runs, read back by id. */
export interface ManualFlowRunRepository {
  insert(tx: Transaction, run: ManualFlowRun): Promise<void>;
  find(tx: Transaction, scope: TenantScope, flowId: string, id: string): Promise<ManualFlowRun | null>;
}

/** The payment a manual run runs over: its facts, as a payment's own run sees them. */
export interface ManualRunPayments {
  find(tx: Transaction, scope: TenantScope, paymentId: string): Promise<{ readonly id: string; readonly status: string; readonly amount: number; readonly currency: string; readonly facts: FlowPaymentFacts } | null>;
}
