import type { FlowPrimitives } from '../../domain/flow/flow';
import type { FlowVersion } from '../../domain/ports/flow-repository';

/** A flow as the API shows it: the draft graph, and which version payments run. */
export function flowObject(f: FlowPrimitives) {
  return {
    object: 'flow' as const,
    id: f.id,
    name: f.name,
    description: f.description,
    triggerEvent: f.triggerEvent,
    template: f.template,
    status: f.status,
    active: f.active,
    publishedVersion: f.publishedVersion,
    latestVersion: f.latestVersion > 0 ? f.latestVersion : null,
    hasUnpublishedChanges: f.draftVersion === null || f.draftVersion !== f.publishedVersion,
    graph: f.graph,
    environment: f.environment,
    livemode: f.environment === 'live',
    publishedAt: f.publishedAt,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
  };
}

export function flowVersionObject(v: FlowVersion, flow: FlowPrimitives) {
  return {
    object: 'flow_version' as const,
    flowId: v.flowId,
    version: v.version,
    triggerEvent: v.triggerEvent,
    inForce: flow.status === 'published' && flow.publishedVersion === v.version,
    connectorAccountIds: [...v.accountIds],
    graph: v.graph,
    publishedAt: v.publishedAt,
  };
}
