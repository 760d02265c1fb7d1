/**
 * The OpenAPI 3.1 document, generated from the same route definitions (and JSON Schemas) the edge
 * validates with, so the reference can never drift from what the service enforces.
 */
import { API_VERSION } from '../domain/ports/event-outbox';
import type { RouteDefinition } from './http/route';
import { closeObjects, type JsonSchema } from './http/validation';

const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'param', 'details', 'requestId'],
      properties: {
        code: { type: 'string', description: 'Stable snake_case code' },
        message: { type: 'string' },
        param: { type: ['string', 'null'] },
        details: { type: 'array', items: { type: 'object', properties: { param: { type: 'string' }, message: { type: 'string' } } } },
        requestId: { type: 'string' },
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
    if (route.hidden) continue;
    const headers = [
      ...(route.idempotent ? [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }] : []),
    ];
    const operation: Record<string, unknown> = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      parameters: [...pathParameters(route.path), ...queryParameters(route.query), ...headers],
      responses: {
        [String(route.successStatus)]: {
          description: 'Success',
          content: { 'application/json': { schema: route.response ?? { type: 'object' } } },
        },
        default: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
      ...(route.auth === 'merchant' || route.auth === 'session' ? { security: [{ bearer: [] }] } : { security: [] }),
      ...(route.scopes?.length ? { 'x-scopes': route.scopes } : {}),
    };
    if (route.body) {
      operation.requestBody = { required: true, content: { 'application/json': { schema: closeObjects(route.body) } } };
    }
    const path = openApiPath(route.path);
    paths[path] = { ...(paths[path] ?? {}), [route.method]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment Orchestration API',
      version: serviceVersion,
      description: `Payload contract version ${API_VERSION}. Errors share one shape; every response carries Request-Id.`,
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key (sk_sandbox_..., sk_live_...) or dashboard access token' } },
    },
  };
}
