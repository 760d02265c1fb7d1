import type { ConnectorDescription } from '../../domain/ports/connector-description';
import type { ListConnectorCatalog } from '../../application/connector-account/list-connector-catalog';
import type { CreateConnectorAccount } from '../../application/connector-account/create-connector-account';
import type { GetConnectorAccount, ListConnectorAccounts } from '../../application/connector-account/read-connector-accounts';
import type { UpdateConnectorAccount } from '../../application/connector-account/update-connector-account';
import type { DeleteConnectorAccount } from '../../application/connector-account/delete-connector-account';
import type { VerifyConnectorAccount, VerifyConnectorCredentials } from '../../application/connector-account/verify-connector-credentials';
import { tenantScopeOf } from '../http/principal';
import { defineRoute, type RateLimitRule, type RouteDefinition } from '../http/route';
import { deletedResponse } from '../http/response-schemas';
import {
  ACCOUNT_LIST_QUERY,
  ACCOUNT_RESPONSE,
  CATALOG_ENTRY_RESPONSE,
  CATALOG_QUERY,
  CREATE_ACCOUNT_BODY,
  UPDATE_ACCOUNT_BODY,
  VERIFICATION_RESPONSE,
  VERIFY_BODY,
} from './connector.schemas';

export interface ConnectorUseCases {
  readonly catalog: ListConnectorCatalog;
  readonly create: CreateConnectorAccount;
  readonly list: ListConnectorAccounts;
  readonly get: GetConnectorAccount;
  readonly update: UpdateConnectorAccount;
  readonly remove: DeleteConnectorAccount;
  readonly verifyCredentials: VerifyConnectorCredentials;
  readonly verifyAccount: VerifyConnectorAccount;
}

const TAG = 'Connectors';

/**
 * Credential tests at a partner: 20 per minute per organization (spec, Limits), shared by verify without saving,
 * a create with verify and the verify of a stored account, so none is a way around the others.
 */
const CREDENTIAL_TESTS: RateLimitRule = { name: 'connector-verify', points: 20, durationSeconds: 60, key: (request) => request.principal?.organizationId ?? null };

/** The catalog entry as the API shows it (contract.md 7): schemas as JSON objects, never proto JSON. */
export function catalogEntryJson(d: ConnectorDescription) {
  return {
    object: 'connector' as const,
    slug: d.slug,
    name: d.name,
    kind: d.kind,
    capabilities: [...d.capabilities],
    credentialSchema: d.credentialSchema,
    configSchema: d.configSchema,
    available: d.available,
  };
}

const list = <T>(data: T[]) => ({ object: 'list' as const, data, hasMore: false });

export function connectorRoutes(useCases: ConnectorUseCases): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/v1/connectors', operationId: 'listConnectors', tag: TAG, auth: 'merchant', scopes: ['connectors:read'],
      summary: 'Connector catalog: the configured partner adapters plus coming-soon entries (available false)',
      query: CATALOG_QUERY, successStatus: 200,
      response: { type: 'object', properties: { object: { type: 'string' }, data: { type: 'array', items: CATALOG_ENTRY_RESPONSE }, hasMore: { type: 'boolean' } } },
      handler: async (request) => {
        const entries = await useCases.catalog.execute(request.query as { kind?: 'acquirer' | 'antifraud'; capability?: string });
        return { body: list(entries.map(catalogEntryJson)) };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/connectors/:slug/verify', operationId: 'verifyConnectorCredentials', tag: TAG, auth: 'merchant',
      scopes: ['connectors:write'],
      summary: 'Test credentials at the partner without saving them (valid, invalid or unreachable); 20 per minute per organization',
      body: VERIFY_BODY, successStatus: 201, response: VERIFICATION_RESPONSE,
      rateLimits: [CREDENTIAL_TESTS],
      handler: async (request) => {
        const body = request.body as { credentials: Record<string, string>; config: Record<string, unknown> };
        return { body: await useCases.verifyCredentials.execute(request.params.slug!, body.credentials, body.config) };
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/connector-accounts', operationId: 'listConnectorAccounts', tag: TAG, auth: 'merchant', scopes: ['connectors:read'],
      summary: "Connector accounts of the credential's environment; capability filters on effectiveCapabilities",
      query: ACCOUNT_LIST_QUERY, successStatus: 200,
      response: { type: 'object', properties: { object: { type: 'string' }, data: { type: 'array', items: ACCOUNT_RESPONSE }, hasMore: { type: 'boolean' } } },
      handler: async (request) => ({ body: list(await useCases.list.execute(tenantScopeOf(request.principal), request.query as { capability?: string })) }),
    }),
    defineRoute({
      method: 'post', path: '/v1/connector-accounts', operationId: 'createConnectorAccount', tag: TAG, auth: 'merchant', scopes: ['connectors:write'],
      summary: 'Create a connector account; credentials are validated against the connector schema and stored encrypted',
      body: CREATE_ACCOUNT_BODY, successStatus: 201, response: ACCOUNT_RESPONSE, idempotent: true,
      // A create with verify saves nothing when the partner refuses: a credential test like verify without saving.
      rateLimits: [{ ...CREDENTIAL_TESTS, key: (request) => (request.body?.verify === true ? CREDENTIAL_TESTS.key(request) : null) }],
      handler: async (request) => {
        const b = request.body as {
          connectorSlug: string; name: string; credentials: Record<string, string>; config: Record<string, unknown>;
          costBasisPoints?: number | null; enabled: boolean; verify: boolean;
        };
        const view = await useCases.create.execute({
          scope: tenantScopeOf(request.principal),
          connectorSlug: b.connectorSlug,
          name: b.name,
          credentials: b.credentials,
          config: b.config,
          costBasisPoints: b.costBasisPoints ?? null,
          enabled: b.enabled,
          verify: b.verify,
        });
        return { body: view };
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/connector-accounts/:id', operationId: 'getConnectorAccount', tag: TAG, auth: 'merchant', scopes: ['connectors:read'],
      summary: 'One connector account with usedByFlows, health and webhookUrl (another environment answers 404)',
      successStatus: 200, response: ACCOUNT_RESPONSE,
      handler: async (request) => ({ body: await useCases.get.execute(tenantScopeOf(request.principal), request.params.id!) }),
    }),
    defineRoute({
      method: 'patch', path: '/v1/connector-accounts/:id', operationId: 'updateConnectorAccount', tag: TAG, auth: 'merchant', scopes: ['connectors:write'],
      summary: 'Update a connector account; omitted or empty credentials keep their value, config merges, a changed credential clears the health',
      body: UPDATE_ACCOUNT_BODY, successStatus: 200, response: ACCOUNT_RESPONSE,
      handler: async (request) => ({ body: await useCases.update.execute(tenantScopeOf(request.principal), request.params.id!, request.body) }),
    }),
    defineRoute({
      method: 'delete', path: '/v1/connector-accounts/:id', operationId: 'deleteConnectorAccount', tag: TAG, auth: 'merchant', scopes: ['connectors:write'],
      summary: 'Delete a connector account (409 while a published flow uses it; disable it to take a partner offline at once)',
      successStatus: 200,
      response: deletedResponse('connector_account'),
      handler: async (request) => ({ body: await useCases.remove.execute(tenantScopeOf(request.principal), request.params.id!) }),
    }),
    defineRoute({
      method: 'post', path: '/v1/connector-accounts/:id/verify', operationId: 'verifyConnectorAccount', tag: TAG, auth: 'merchant',
      scopes: ['connectors:write'],
      summary: "Test the account's stored credentials at the partner and update its displayed health",
      successStatus: 201, response: VERIFICATION_RESPONSE,
      // A stored account's test calls the partner as much as any other: the same budget, or it would be the way round it.
      rateLimits: [CREDENTIAL_TESTS],
      handler: async (request) => ({ body: await useCases.verifyAccount.execute(tenantScopeOf(request.principal), request.params.id!) }),
    }),
  ];
}
