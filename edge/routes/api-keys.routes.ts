import type { CreateApiKey } from '../../application/api-key/create-api-key';
import { SCOPES } from '../../domain/api-key/scopes';
import type { ApiKey } from '../../domain/api-key/api-key';
import type { ApiKeyRepository } from '../../domain/ports/api-key-repository';
import type { Clock } from '../../domain/ports/clock';
import type { Transactor } from '../../domain/ports/transactor';
import { NotFoundError } from '../../domain/shared/domain-error';
import { defineRoute, type RouteDefinition } from '../http/route';
import { requireAccountAdmin } from './session.authenticator';
import { dateTime, deletedResponse, listOf, objectName, record, str } from '../http/response-schemas';
import type { JsonSchema } from '../http/validation';

export interface ApiKeyRouteDeps {
  readonly create: CreateApiKey;
  readonly repository: ApiKeyRepository;
  readonly transactor: Transactor;
  readonly clock: Clock;
}

const TAG = 'API keys';

const apiKeyResponse: JsonSchema = record({
  object: objectName('api_key'),
  id: str,
  name: str,
  environment: { type: 'string', enum: ['sandbox', 'live'] },
  scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] } },
  last4: { type: 'string', examples: ['4f2a'] },
  createdAt: dateTime,
});
const createdApiKeyResponse: JsonSchema = {
  ...apiKeyResponse,
  required: [...(apiKeyResponse.required as string[]), 'secret'],
  properties: { ...(apiKeyResponse.properties as object), secret: { type: 'string', description: 'The key itself, shown only in this answer', examples: ['sk_sandbox_...'] } },
};

export function apiKeyView(key: ApiKey) {
  return {
    object: 'api_key',
    id: key.id,
    name: key.name,
    environment: key.environment,
    scopes: [...key.scopes],
    last4: key.last4,
    createdAt: new Date(key.createdAt).toISOString(),
  };
}

/** API key management from a dashboard session of an owner or administrator (contract.md section 2). */
export function apiKeyRoutes(deps: ApiKeyRouteDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post', path: '/v1/api-keys', operationId: 'createApiKey', tag: TAG, auth: 'session', scopes: ['api_keys:write'], successStatus: 201,
      summary: 'Create an API key; its secret is returned only here', response: createdApiKeyResponse,
      body: {
        type: 'object',
        required: ['name', 'environment'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 120 },
          environment: { type: 'string', enum: ['sandbox', 'live'] },
          scopes: { type: 'array', minItems: 1, maxItems: SCOPES.length, uniqueItems: true, items: { type: 'string', enum: [...SCOPES] } },
        },
      },
      handler: async ({ principal, body }) => {
        const session = requireAccountAdmin(principal);
        const created = await deps.create.execute({ organizationId: session.organizationId, environment: body.environment, name: body.name, scopes: body.scopes });
        const view = apiKeyView(created.key);
        return { body: { ...view, secret: created.secret } };
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/api-keys', operationId: 'listApiKeys', tag: TAG, auth: 'session', scopes: ['api_keys:read'], successStatus: 200,
      summary: 'Active API keys of the account (no secrets)', response: listOf(apiKeyResponse),
      query: { type: 'object', properties: { environment: { type: 'string', enum: ['sandbox', 'live'] } } },
      handler: async ({ principal, query }) => {
        const session = requireAccountAdmin(principal);
        const keys = await deps.transactor.read((tx) => deps.repository.listByOrganization(tx, session.organizationId, query.environment));
        return { body: { object: 'list', data: keys.map(apiKeyView), hasMore: false } };
      },
    }),
    defineRoute({
      method: 'delete', path: '/v1/api-keys/:id', operationId: 'revokeApiKey', tag: TAG, auth: 'session', scopes: ['api_keys:write'], successStatus: 200,
      summary: 'Revoke an API key at once', response: deletedResponse('api_key'),
      handler: async ({ principal, params }) => {
        const session = requireAccountAdmin(principal);
        const revoked = await deps.transactor.run((tx) => deps.repository.revoke(tx, session.organizationId, params.id!, deps.clock.now()));
        if (!revoked) throw new NotFoundError('api_key', params.id);
        return { body: { object: 'api_key', id: params.id, deleted: true } };
      },
    }),
  ];
}
