import type { TenantScope } from '../shared/environment';
import type { FlowGraph, FlowTriggerEvent } from '../flow/flow-graph';
import type { PublishedFlow } from './flow-repository';

/** Which published flow routes a payment (contract.md 4); null: direct routing. */
export interface PaymentFlows {
  /**
   * `flowId` names a published flow of the environment (null when it is not one); without it, the environment's
   * active flow for the payment's trigger event (payment.authorization_requested unless the payment was started
   * under another: an invoice, a renewal, a retry), or null when none is.
   */
  forPayment(scope: TenantScope, flowId: string | null, triggerEvent?: FlowTriggerEvent): Promise<PublishedFlow | null>;
  /** The graph of one published version (a run resumed after a restart continues on the graph it started on). */
  graphOf(scope: TenantScope, flowId: string, version: number): Promise<FlowGraph | null>;
}
