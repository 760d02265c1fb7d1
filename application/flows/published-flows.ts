import { tenantChangeKey } from '../../domain/ports/change-feed';
import type { ConnectorAccountUsage } from '../../domain/ports/connector-catalog';
import type { FlowGraph, FlowTriggerEvent } from '../../domain/flow/flow-graph';
import type { FlowRepository, PublishedFlow } from '../../domain/ports/flow-repository';
import type { PaymentFlows } from '../../domain/ports/payment-flows';
import type { Transaction } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';
import { ChangeAwareCache } from '../shared/change-aware-cache';
import type { FlowDeps } from './flow-deps';

const TRIGGER_KEY_SEPARATOR = '\u0000';

/**
 * The flows capability as the rest of the product consumes it: the flow a payment runs (service `paymentFlows`)
 * and the published flows citing a connector account (service `connectorAccountUsage`). Every payment asks for
 * its environment's active flow, so that answer is kept in memory until a flow of the environment changes;
 * a flow named by id is read each time.
 */
export class PublishedFlows implements PaymentFlows, ConnectorAccountUsage {
  private readonly activeMemory: ChangeAwareCache<PublishedFlow | null> | null;
  private readonly flows: FlowRepository;

  constructor(private readonly deps: FlowDeps) {
    this.flows = deps.flows;
    // One entry per environment and trigger event, dropped by any change of the environment's flows.
    this.activeMemory = deps.changes
      ? new ChangeAwareCache<PublishedFlow | null>(deps.changes, 'flows', { clock: deps.clock, changeKeyOf: (key) => key.split(TRIGGER_KEY_SEPARATOR)[0]! })
      : null;
  }

  async forPayment(scope: TenantScope, flowId: string | null, triggerEvent: FlowTriggerEvent = 'payment.authorization_requested'): Promise<PublishedFlow | null> {
    if (flowId) return this.deps.transactor.read((tx) => this.flows.findPublished(tx, scope, { triggerEvent, flowId }));
    const read = () => this.deps.transactor.read((tx) => this.flows.findPublished(tx, scope, { triggerEvent }));
    return this.activeMemory ? this.activeMemory.get(`${tenantChangeKey(scope)}${TRIGGER_KEY_SEPARATOR}${triggerEvent}`, read) : read();
  }

  async graphOf(scope: TenantScope, flowId: string, version: number): Promise<FlowGraph | null> {
    const found = await this.deps.transactor.read((tx) => this.flows.findVersion(tx, scope, flowId, version));
    return found?.graph ?? null;
  }

  publishedFlowsUsing(tx: Transaction, scope: TenantScope, accountIds: readonly string[]): Promise<Map<string, Array<{ id: string; name: string }>>> {
    return this.flows.publishedFlowsUsing(tx, scope, accountIds);
  }
}
