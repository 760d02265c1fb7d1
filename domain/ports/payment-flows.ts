import type { TenantScope } from '../shared/environment';
import type { FlowGraph } from '../flow/flow-graph';
import type { PublishedFlow } from './flow-repository';

/** Which published flow routes a payment (contract.md 4); null: direct routing. */
export interface PaymentFlows {
  /**
   * `flowId` names a published flow of the environment (null when it is not one); without it, the environment's
   * active flow for payment.authorization_requested, or null when none is.
   */
  forPayment(scope: TenantScope, flowId: string | null): Promise<PublishedFlow | null>;
  /** The graph of one published version (a run resumed after a restart continues on the graph it started on). */
  graphOf(scope: TenantScope, flowId: string, version: number): Promise<FlowGraph | null>;
}
