import type { JsonSchema } from '../http/validation';

/** Request schemas of the connector routes (spec: Endpoints, Connectors). */
const CREDENTIALS: JsonSchema = {
  type: 'object',
  description: 'Credential fields of the connector (see its credentialSchema); each value at most 8192 characters.',
  additionalProperties: { type: 'string', maxLength: 8192 },
  maxProperties: 50,
};

const CONFIG: JsonSchema = {
  type: 'object',
  description: "Connector settings, validated against the connector's configSchema.",
  maxProperties: 50,
};

export const CATALOG_QUERY: JsonSchema = {
  type: 'object',
  properties: {
    kind: { type: 'string', enum: ['acquirer', 'antifraud'] },
    capability: { type: 'string', minLength: 1, maxLength: 64 },
  },
};

export const VERIFY_BODY: JsonSchema = {
  type: 'object',
  properties: {
    credentials: { ...CREDENTIALS, default: {} },
    config: { ...CONFIG, default: {} },
  },
};

export const ACCOUNT_LIST_QUERY: JsonSchema = {
  type: 'object',
  properties: { capability: { type: 'string', minLength: 1, maxLength: 64 } },
};

export const CREATE_ACCOUNT_BODY: JsonSchema = {
  type: 'object',
  required: ['connectorSlug', 'name'],
  examples: [{ connectorSlug: 'sandbox', name: 'Sandbox acquirer', credentials: { merchantId: 'merchant-1', apiKey: 'sandbox-api-key' }, costBasisPoints: 250 }],
  properties: {
    connectorSlug: { type: 'string', minLength: 1, maxLength: 64 },
    name: { type: 'string', minLength: 1, maxLength: 120 },
    credentials: { ...CREDENTIALS, default: {} },
    config: { ...CONFIG, default: {} },
    costBasisPoints: { type: ['integer', 'null'], minimum: 0, maximum: 10000 },
    enabled: { type: 'boolean', default: true },
    verify: { type: 'boolean', default: false },
  },
};

export const UPDATE_ACCOUNT_BODY: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 120 },
    credentials: { ...CREDENTIALS, description: 'Only what changes: an omitted or empty credential keeps its current value.' },
    config: {
      type: ['object', 'null'],
      maxProperties: 50,
      description: 'Merged with the current config; a key sent as null resets it to its default (null as a whole resets all).',
    },
    costBasisPoints: { type: ['integer', 'null'], minimum: 0, maximum: 10000 },
    enabled: { type: 'boolean' },
  },
};

const CREDENTIAL_FIELD_VIEW: JsonSchema = {
  type: 'object',
  properties: { filled: { type: 'boolean' }, preview: { type: 'string', description: 'Masked fragment; only for fields not marked x-secret' } },
};

export const ACCOUNT_RESPONSE: JsonSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['connector_account'] },
    id: { type: 'string' },
    connectorSlug: { type: 'string' },
    connectorName: { type: ['string', 'null'] },
    kind: { type: 'string', enum: ['acquirer', 'antifraud'] },
    name: { type: 'string' },
    environment: { type: 'string', enum: ['sandbox', 'live'] },
    enabled: { type: 'boolean' },
    costBasisPoints: { type: ['integer', 'null'] },
    config: { type: 'object' },
    credentials: { type: 'object', additionalProperties: CREDENTIAL_FIELD_VIEW },
    effectiveCapabilities: { type: 'array', items: { type: 'string' } },
    usedByFlows: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } } },
    webhookUrl: { type: 'string' },
    health: { type: 'object' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

export const CATALOG_ENTRY_RESPONSE: JsonSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['connector'] },
    slug: { type: 'string' },
    name: { type: 'string' },
    kind: { type: 'string', enum: ['acquirer', 'antifraud'] },
    capabilities: { type: 'array', items: { type: 'string' } },
    credentialSchema: { type: 'object' },
    configSchema: { type: 'object' },
    available: { type: 'boolean' },
  },
};

export const VERIFICATION_RESPONSE: JsonSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['connector_verification'] },
    connectorSlug: { type: 'string' },
    connectorAccountId: { type: ['string', 'null'] },
    result: { type: 'string', enum: ['valid', 'invalid', 'unreachable'] },
    message: { type: 'string' },
    verifiedAt: { type: 'string', format: 'date-time' },
  },
};
