import { FLOW_NODE_TYPES, FLOW_TRIGGER_EVENTS } from '../../domain/flow/flow-graph';
import { FLOW_TEMPLATE_IDS } from '../../domain/flow/flow-templates';
import type { JsonSchema } from '../http/validation';
import { bool, int, objectName, record, str } from '../http/response-schemas';

/** Schemas of the flow routes (spec: Flows; contract.md 4 for the operations beyond create). */
const id64: JsonSchema = { type: 'string', minLength: 1, maxLength: 64 };

const NODE: JsonSchema = {
  type: 'object',
  required: ['id', 'type', 'position'],
  properties: {
    id: id64,
    type: { type: 'string', enum: [...FLOW_NODE_TYPES] },
    position: { type: 'object', required: ['x', 'y'], properties: { x: { type: 'number' }, y: { type: 'number' } } },
    label: { type: ['string', 'null'], maxLength: 120 },
    notes: { type: ['string', 'null'], maxLength: 500 },
    data: { type: 'object', maxProperties: 50, default: {}, description: 'Node settings; see builder-metadata for each type (accounts are always connectorAccountId / connectorAccountIds).' },
  },
};

const EDGE: JsonSchema = {
  type: 'object',
  required: ['source', 'target'],
  properties: {
    id: { ...id64, description: 'Generated (edge_1, edge_2 ...) when omitted.' },
    source: id64,
    target: { type: 'string', minLength: 1, maxLength: 64 },
    sourcePort: { type: ['string', 'null'], minLength: 1, maxLength: 64, description: "The source's exit port; may be omitted when the source has one port." },
  },
};

export const GRAPH: JsonSchema = {
  type: 'object',
  required: ['nodes'],
  properties: {
    nodes: { type: 'array', minItems: 1, maxItems: 120, items: NODE },
    edges: { type: 'array', maxItems: 500, items: EDGE, default: [] },
  },
};

export const CREATE_FLOW_BODY: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 120 },
    description: { type: ['string', 'null'], maxLength: 500 },
    triggerEvent: { type: 'string', enum: [...FLOW_TRIGGER_EVENTS], description: "Default: the template's, else payment.authorization_requested." },
    template: { type: 'string', enum: FLOW_TEMPLATE_IDS },
    graph: GRAPH,
  },
};

export const UPDATE_FLOW_BODY: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 120 },
    description: { type: ['string', 'null'], maxLength: 500 },
    triggerEvent: { type: 'string', enum: [...FLOW_TRIGGER_EVENTS], description: 'Only before the first publish.' },
    graph: { ...GRAPH, description: 'Replaces the draft graph as a whole.' },
  },
};

export const PUBLISH_FLOW_BODY: JsonSchema = {
  type: 'object',
  properties: { version: { type: 'integer', minimum: 1, description: 'Re-publish this stored version (roll back) instead of the draft.' } },
};

export const LIST_FLOWS_QUERY: JsonSchema = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    startingAfter: { type: 'string', minLength: 1, maxLength: 128 },
    status: { type: 'string', enum: ['draft', 'published'] },
    triggerEvent: { type: 'string', enum: [...FLOW_TRIGGER_EVENTS] },
  },
};

const nullableString: JsonSchema = { type: ['string', 'null'] };

export const FLOW_RESPONSE: JsonSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['flow'] },
    id: { type: 'string' },
    name: { type: 'string' },
    description: nullableString,
    triggerEvent: { type: 'string', enum: [...FLOW_TRIGGER_EVENTS] },
    template: nullableString,
    status: { type: 'string', enum: ['draft', 'published'], description: 'published: payments may run it (publishedVersion).' },
    active: { type: 'boolean', description: "The environment's flow for its trigger event: payments without flowId run it." },
    publishedVersion: { type: ['integer', 'null'] },
    latestVersion: { type: ['integer', 'null'] },
    hasUnpublishedChanges: { type: 'boolean', description: 'The draft differs from the version in force.' },
    graph: GRAPH,
    environment: { type: 'string' },
    livemode: { type: 'boolean' },
    publishedAt: nullableString,
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

export const FLOW_VERSION_RESPONSE: JsonSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['flow_version'] },
    flowId: { type: 'string' },
    version: { type: 'integer' },
    triggerEvent: { type: 'string' },
    inForce: { type: 'boolean' },
    connectorAccountIds: { type: 'array', items: { type: 'string' } },
    graph: GRAPH,
    publishedAt: { type: 'string', format: 'date-time' },
  },
};

/** The versions list takes no parameters (every kept version, newest first); an unknown one is 422 as on every list. */
export const LIST_VERSIONS_QUERY: JsonSchema = { type: 'object', properties: {} };

/** GET /v1/flows/builder-metadata (domain/flow/builder-metadata.ts). */
export const BUILDER_METADATA_RESPONSE: JsonSchema = record({
  object: objectName('flow_builder_metadata'),
  triggerEvents: { type: 'array', items: record({ event: { type: 'string', enum: [...FLOW_TRIGGER_EVENTS] }, publishable: bool }) },
  nodeTypes: {
    type: 'array',
    items: record({
      type: { type: 'string', enum: [...FLOW_NODE_TYPES] },
      label: str,
      category: { type: 'string', examples: ['payment'] },
      ports: { type: 'array', description: 'Exit ports, each the sourcePort of an edge', items: str },
      terminal: { type: 'boolean', description: 'No exit port: the flow ends here' },
      data: { type: 'object', description: 'Each data field of the node and what it holds', additionalProperties: str },
      publishable: bool,
    }),
  },
  ruleFields: { type: 'array', items: record({ field: str, kind: { type: 'string', examples: ['number'] }, description: str }) },
  operators: { type: 'array', items: record({ operator: { type: 'string', examples: ['eq'] }, description: str, value: str }) },
  routeStrategies: { type: 'array', items: { type: 'string', examples: ['priority'] } },
  templates: {
    type: 'array',
    items: record({
      id: { type: 'string', enum: [...FLOW_TEMPLATE_IDS] },
      name: str,
      description: str,
      triggerEvent: { type: 'string', enum: [...FLOW_TRIGGER_EVENTS] },
      graph: { type: 'object', required: ['nodes', 'edges'], properties: { nodes: { type: 'array', items: { type: 'object' } }, edges: { type: 'array', items: { type: 'object' } } } },
    }),
  },
  limits: record({ nodes: record({ min: int, max: int }) }),
});
