/**
 * The OpenAPI 3.1 document, generated from the same route definitions (and JSON Schemas) the edge
 * validates with, so the reference can never drift from what the service enforces.
 */
import type { RouteDefinition } from './http/route';
import { closeObjects, type JsonSchema } from './http/validation';
import { API_DESCRIPTION, TAG_DESCRIPTIONS } from './openapi-description';
import { errorResponse, refusalsOf } from './openapi-errors';
import { exampleOf } from './openapi-examples';

/** contract.md 3: the one error body, whatever the status. */
const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Every error answer. Branch on error.code (stable snake_case), never on the message.',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'param', 'details', 'requestId'],
      properties: {
        code: { type: 'string', description: 'Stable snake_case code', examples: ['validation_failed'] },
        message: { type: 'string', description: 'A sentence for a person; may change', examples: ['The request is invalid'] },
        param: { type: ['string', 'null'], description: 'The input at fault (body.amount, query.limit), or null', examples: ['body.amount'] },
        details: {
          type: 'array',
          description: 'Each fault of a refused input',
          items: { type: 'object', required: ['param', 'message'], properties: { param: { type: 'string' }, message: { type: 'string' } } },
          examples: [[{ param: 'body.amount', message: 'must be >= 1' }]],
        },
        requestId: { type: 'string', description: 'The Request-Id header of the answer; quote it to support', examples: ['req_01JF3Q8Z4N6V2K7T9W5X1Y3C8D'] },
      },
    },
  },
};

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function pathParameters(path: string) {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => ({ name: match[1], in: 'path', required: true, schema: { type: 'string' } }));
}

function queryParameters(schema: JsonSchema | undefined) {
  const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema?.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => ({ name, in: 'query', required: required.has(name), schema: property }));
}

export function buildOpenApiDocument(routes: readonly RouteDefinition[], serviceVersion: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const headers = [
      ...(route.idempotent
        ? [{ name: 'Idempotency-Key', in: 'header', required: false, description: IDEMPOTENCY_KEY, schema: { type: 'string', maxLength: 255 }, example: 'order-1042-attempt-1' }]
        : []),
    ];
    const operation: Record<string, unknown> = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      parameters: [...pathParameters(route.path), ...queryParameters(route.query), ...headers],
      responses: {
        [String(route.successStatus)]: successResponse(route),
        ...Object.fromEntries([...refusalsOf(route)].map(([status, codes]) => [String(status), errorResponse(status, codes)])),
        default: { description: 'A failure of the service itself (5xx): the body carries only the request id', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
      ...(route.auth === 'merchant' || route.auth === 'session' ? { security: [{ bearer: [] }] } : { security: [] }),
      ...(route.scopes?.length ? { 'x-scopes': route.scopes } : {}),
    };
    if (route.body) {
      operation.requestBody = { required: true, content: { 'application/json': { schema: closeObjects(route.body), example: exampleOf(route.body, 'request') } } };
    }
    const path = openApiPath(route.path);
    paths[path] = { ...(paths[path] ?? {}), [route.method]: operation };
  }
  const usedTags = new Set(routes.map((route) => route.tag));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment Orchestration API',
      version: serviceVersion,
      description: API_DESCRIPTION,
    },
    servers: [{ url: '/' }],
    tags: [
      ...Object.entries(TAG_DESCRIPTIONS).filter(([name]) => usedTags.has(name)).map(([name, description]) => ({ name, description })),
      ...[...usedTags].filter((name) => !(name in TAG_DESCRIPTIONS)).map((name) => ({ name })),
    ],
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key (sk_sandbox_..., sk_live_...) or dashboard access token' } },
    },
  };
}

const IDEMPOTENCY_KEY = 'Makes a retry safe: the same key and body within 24 hours return the first answer (Idempotent-Replayed: true); another body, or the first request still running, answers 409 idempotency_conflict.';

function successResponse(route: RouteDefinition): Record<string, unknown> {
  const mediaType = route.responseMediaType ?? 'application/json';
  if (mediaType !== 'application/json') return { description: route.summary, content: { [mediaType]: { schema: { type: 'string' } } } };
  const schema = route.response ?? { type: 'object' };
  return { description: route.summary, content: { 'application/json': { schema, example: exampleOf(schema, 'response') } } };
}
