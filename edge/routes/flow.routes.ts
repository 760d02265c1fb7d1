import type { CreateFlow } from '../../application/flows/create-flow';
import type { DeleteFlow } from '../../application/flows/delete-flow';
import type { PublishFlow } from '../../application/flows/publish-flow';
import type { UnpublishFlow } from '../../application/flows/unpublish-flow';
import type { GetFlow, GetFlowBuilderMetadata, ListFlowVersions, ListFlows } from '../../application/flows/read-flows';
import type { UpdateFlow } from '../../application/flows/update-flow';
import type { FlowEdge, FlowGraph, FlowNode, FlowTriggerEvent } from '../../domain/flow/flow-graph';
import { tenantScopeOf } from '../http/principal';
import { defineRoute, type RouteDefinition } from '../http/route';
import { deletedResponse } from '../http/response-schemas';
import { BUILDER_METADATA_RESPONSE, CREATE_FLOW_BODY, FLOW_RESPONSE, FLOW_VERSION_RESPONSE, LIST_FLOWS_QUERY, LIST_VERSIONS_QUERY, PUBLISH_FLOW_BODY, UPDATE_FLOW_BODY } from './flow.schemas';

export interface FlowUseCases {
  readonly metadata: GetFlowBuilderMetadata;
  readonly list: ListFlows;
  readonly create: CreateFlow;
  readonly get: GetFlow;
  readonly update: UpdateFlow;
  readonly remove: DeleteFlow;
  readonly publish: PublishFlow;
  readonly unpublish: UnpublishFlow;
  readonly versions: ListFlowVersions;
}

const TAG = 'Flows';

type GraphBody = { nodes: FlowNode[]; edges?: Array<Omit<FlowEdge, 'id'> & { id?: string }> };

/** The body's graph as the domain keeps it: every edge with an id (see edgeIds). */
function toGraph(body: GraphBody | undefined): FlowGraph | undefined {
  if (!body) return undefined;
  return {
    nodes: body.nodes.map((n) => ({ ...n, data: n.data ?? {} })),
    edges: withEdgeIds(body.edges ?? []),
  };
}

/**
 * An edge without an id gets `edge_<its position>`, or, when the body already names another edge so, the first
 * `edge_<n>` past the list that no edge uses: a generated id never collides with one the caller chose.
 */
function withEdgeIds(edges: NonNullable<GraphBody['edges']>): FlowEdge[] {
  const taken = new Set(edges.flatMap((e) => (e.id === undefined ? [] : [e.id])));
  let spare = edges.length;
  const freshId = (position: number) => {
    let id = `edge_${position}`;
    while (taken.has(id)) id = `edge_${++spare}`;
    taken.add(id);
    return id;
  };
  return edges.map((e, i) => ({ ...e, id: e.id ?? freshId(i + 1) }));
}

const listOf = (item: object) => ({ type: 'object', properties: { object: { type: 'string' }, data: { type: 'array', items: item }, hasMore: { type: 'boolean' } } });

export function flowRoutes(useCases: FlowUseCases): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/v1/flows/builder-metadata', operationId: 'getFlowBuilderMetadata', tag: TAG, auth: 'merchant', scopes: ['flows:read'],
      summary: 'Node palette, exit ports, fields and operators of rules, route strategies and ready templates; says which node types and triggers can be published',
      successStatus: 200,
      response: BUILDER_METADATA_RESPONSE,
      handler: async () => ({ body: useCases.metadata.execute() }),
    }),
    defineRoute({
      method: 'get', path: '/v1/flows', operationId: 'listFlows', tag: TAG, auth: 'merchant', scopes: ['flows:read'],
      summary: 'Flows of the environment, newest first', query: LIST_FLOWS_QUERY, successStatus: 200, response: listOf(FLOW_RESPONSE),
      handler: async (request) => ({ body: await useCases.list.execute(tenantScopeOf(request.principal), request.query as Parameters<ListFlows['execute']>[1]) }),
    }),
    defineRoute({
      method: 'post', path: '/v1/flows', operationId: 'createFlow', tag: TAG, auth: 'merchant', scopes: ['flows:write'],
      summary: 'Create a draft flow (from a graph, a template, or a lone trigger); nothing runs until it is published',
      body: CREATE_FLOW_BODY, successStatus: 201, response: FLOW_RESPONSE, idempotent: true,
      handler: async (request) => {
        const b = request.body as { name: string; description?: string | null; triggerEvent?: FlowTriggerEvent; template?: string; graph?: GraphBody };
        const graph = toGraph(b.graph);
        return {
          body: await useCases.create.execute({
            scope: tenantScopeOf(request.principal), name: b.name, description: b.description ?? null,
            ...(b.triggerEvent ? { triggerEvent: b.triggerEvent } : {}), ...(b.template ? { template: b.template } : {}), ...(graph ? { graph } : {}),
          }),
        };
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/flows/:id', operationId: 'getFlow', tag: TAG, auth: 'merchant', scopes: ['flows:read'],
      summary: 'One flow: its draft graph, status, the version in force and whether it is the active flow', successStatus: 200, response: FLOW_RESPONSE,
      handler: async (request) => ({ body: await useCases.get.execute(tenantScopeOf(request.principal), request.params.id!) }),
    }),
    defineRoute({
      method: 'patch', path: '/v1/flows/:id', operationId: 'updateFlow', tag: TAG, auth: 'merchant', scopes: ['flows:write'],
      summary: 'Edit the draft (name, description, graph; the trigger event only before the first publish); the version in force does not change',
      body: UPDATE_FLOW_BODY, successStatus: 200, response: FLOW_RESPONSE,
      handler: async (request) => {
        const b = request.body as { name?: string; description?: string | null; triggerEvent?: FlowTriggerEvent; graph?: GraphBody };
        const graph = toGraph(b.graph);
        const { graph: _graph, ...rest } = b;
        return { body: await useCases.update.execute(tenantScopeOf(request.principal), request.params.id!, { ...rest, ...(graph ? { graph } : {}) }) };
      },
    }),
    defineRoute({
      method: 'delete', path: '/v1/flows/:id', operationId: 'deleteFlow', tag: TAG, auth: 'merchant', scopes: ['flows:write'],
      summary: 'Delete a draft flow and its stored versions (409 while published: unpublish it first)', successStatus: 200,
      response: deletedResponse('flow'),
      handler: async (request) => ({ body: await useCases.remove.execute(tenantScopeOf(request.principal), request.params.id!) }),
    }),
    defineRoute({
      method: 'post', path: '/v1/flows/:id/publish', operationId: 'publishFlow', tag: TAG, auth: 'merchant', scopes: ['flows:write'],
      summary: "Validate and publish the draft as a new version (or re-publish a stored version) and make it the environment's active flow for its trigger event",
      description: 'A graph that cannot run is refused with 422 validation_failed and every fault in details. The flow active before stays published (payments may name it by flowId) but is no longer the default.',
      body: PUBLISH_FLOW_BODY, successStatus: 200, response: FLOW_RESPONSE,
      handler: async (request) => ({ body: await useCases.publish.execute(tenantScopeOf(request.principal), request.params.id!, request.body as { version?: number }) }),
    }),
    defineRoute({
      method: 'post', path: '/v1/flows/:id/unpublish', operationId: 'unpublishFlow', tag: TAG, auth: 'merchant', scopes: ['flows:write'],
      summary: 'Stop running a published flow (back to draft; its versions are kept); without an active flow payments are routed directly',
      successStatus: 200, response: FLOW_RESPONSE,
      handler: async (request) => ({ body: await useCases.unpublish.execute(tenantScopeOf(request.principal), request.params.id!) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/flows/:id/versions', operationId: 'listFlowVersions', tag: TAG, auth: 'merchant', scopes: ['flows:read'],
      summary: 'The published versions kept, newest first, and which one is in force', successStatus: 200, response: listOf(FLOW_VERSION_RESPONSE),
      query: LIST_VERSIONS_QUERY,
      handler: async (request) => ({ body: await useCases.versions.execute(tenantScopeOf(request.principal), request.params.id!) }),
    }),
  ];
}
