import type { CreateWebhookEndpoint, DeleteWebhookEndpoint, RevealWebhookSecret, RotateWebhookSecret, UpdateWebhookEndpoint } from '../../application/webhook/manage-webhook-endpoints';
import type { RetryWebhookDelivery } from '../../application/webhook/retry-webhook-delivery';
import type { SendTestWebhook } from '../../application/webhook/send-test-webhook';
import type { WebhookReadModel } from '../../application/webhook/webhook-read-model';
import type { Clock } from '../../domain/ports/clock';
import type { Transactor } from '../../domain/ports/transactor';
import type { WebhookEndpointRepository } from '../../domain/ports/webhook-repositories';
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import { EVENT_TYPE_GROUPS, TEST_EVENT_TYPE_ENTRY } from '../../domain/webhook/event-types';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../domain/webhook/webhook-delivery.transitions';
import { PAGE_QUERY_PROPERTIES, listBody } from '../http/pagination';
import { tenantScopeOf } from '../http/principal';
import { queryDate } from '../http/query-values';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { JsonSchema } from '../http/validation';
import { attemptedDeliveryView, deliveryDetailView, deliveryRowView, endpointView, type DeliveryPolicySettings } from './webhooks.mappers';

export interface WebhookRouteDeps {
  readonly transactor: Transactor;
  readonly endpoints: WebhookEndpointRepository;
  readonly readModel: WebhookReadModel;
  readonly clock: Clock;
  readonly settings: DeliveryPolicySettings;
  readonly create: CreateWebhookEndpoint;
  readonly update: UpdateWebhookEndpoint;
  readonly remove: DeleteWebhookEndpoint;
  readonly rotate: RotateWebhookSecret;
  readonly reveal: RevealWebhookSecret;
  readonly test: SendTestWebhook;
  readonly retry: RetryWebhookDelivery;
}


const headerMap = (nullable: boolean): JsonSchema => ({
  type: 'object',
  maxProperties: 10,
  additionalProperties: nullable ? { type: ['string', 'null'], maxLength: 1024 } : { type: 'string', maxLength: 1024 },
});
const enabledEvents: JsonSchema = { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 100 } };

const endpointResponse: JsonSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', example: 'webhook_endpoint' },
    id: { type: 'string', example: 'whe_01J...' },
    url: { type: 'string' },
    description: { type: ['string', 'null'] },
    enabledEvents: { type: 'array', items: { type: 'string' } },
    customHeaders: { type: 'object', additionalProperties: { type: 'string' } },
    enabled: { type: 'boolean' },
    status: { type: 'string', enum: ['active', 'failing', 'disabled', 'auto_disabled'] },
    consecutiveFailures: { type: 'integer' },
    disabledReason: { type: ['string', 'null'] },
    secret: { type: 'string', description: 'Only on creation and rotation' },
    secretRotation: { type: 'object', properties: { previousSecretExpiresAt: { type: ['string', 'null'] } } },
    statistics: { type: 'object' },
  },
};

function parseStatuses(raw: string | undefined): DeliveryStatus[] | undefined {
  if (!raw) return undefined;
  const list = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = list.filter((s) => !(DELIVERY_STATUSES as readonly string[]).includes(s));
  if (unknown.length > 0) {
    throw new DomainError('validation_failed', `status must be a comma list of: ${DELIVERY_STATUSES.join(', ')}`, { param: 'query.status' });
  }
  return list as DeliveryStatus[];
}

export function webhookRoutes(deps: WebhookRouteDeps): RouteDefinition[] {
  const loadEndpoint = async (scope: TenantScope, id: string) => {
    const endpoint = await deps.transactor.read((tx) => deps.endpoints.find(tx, scope, id));
    if (!endpoint) throw new NotFoundError('webhook endpoint', id);
    return endpoint;
  };
  const withStatistics = async (endpoints: Awaited<ReturnType<typeof loadEndpoint>>[]) => {
    const now = deps.clock.now();
    const stats = await deps.readModel.endpointStatistics(endpoints.map((e) => e.id), now);
    return endpoints.map((e) => endpointView(e, now, stats.get(e.id), deps.settings));
  };

  return [
    defineRoute({
      method: 'get', path: '/v1/webhooks/event-types', operationId: 'listWebhookEventTypes', tag: 'Webhooks', auth: 'merchant',
      scopes: ['webhooks:read'], successStatus: 200,
      summary: 'Catalog of subscribable event types grouped by resource, with group wildcards; the test type apart',
      handler: async () => ({
        body: {
          object: 'webhook_event_type_catalog',
          allEventsWildcard: '*',
          groups: EVENT_TYPE_GROUPS.map((g) => ({
            resource: g.resource,
            wildcard: g.wildcard,
            description: g.description,
            types: g.types.map((t) => ({ type: t.type, description: t.description, emitted: t.emitted })),
          })),
          testEventType: { type: TEST_EVENT_TYPE_ENTRY.type, description: TEST_EVENT_TYPE_ENTRY.description, subscribable: false },
        },
      }),
    }),
    defineRoute({
      method: 'get', path: '/v1/webhooks/summary', operationId: 'getWebhookSummary', tag: 'Webhooks', auth: 'merchant',
      scopes: ['webhooks:read'], successStatus: 200,
      summary: 'Active, failing and switched-off endpoints; deliveries and success rate over 24 h against the previous 24 h',
      handler: async (request) => ({
        body: { object: 'webhook_summary', ...(await deps.readModel.summary(tenantScopeOf(request.principal), deps.clock.now())) },
      }),
    }),
    defineRoute({
      method: 'get', path: '/v1/webhooks', operationId: 'listWebhookEndpoints', tag: 'Webhooks', auth: 'merchant',
      scopes: ['webhooks:read'], successStatus: 200, summary: 'Webhook endpoints of the environment, with statistics (never the secret)',
      handler: async (request) => {
        const endpoints = await deps.transactor.read((tx) => deps.endpoints.list(tx, tenantScopeOf(request.principal)));
        const data = await withStatistics(endpoints);
        return { body: { object: 'list', data, hasMore: false } };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/webhooks', operationId: 'createWebhookEndpoint', tag: 'Webhooks', auth: 'merchant',
      scopes: ['webhooks:write'], successStatus: 201, idempotent: true, response: endpointResponse,
      summary: 'Register a webhook endpoint; the signing secret is returned only here',
      body: {
        type: 'object',
        required: ['url', 'enabledEvents'],
        examples: [{ url: 'https://merchant.example.com/webhooks', description: 'Order system', enabledEvents: ['payment.captured', 'payment.refunded'] }],
        properties: {
          url: { type: 'string', minLength: 1, maxLength: 2048 },
          description: { type: ['string', 'null'], maxLength: 500 },
          enabledEvents,
          customHeaders: headerMap(false),
          enabled: { type: 'boolean' },
        },
      },
      handler: async (request) => {
        const endpoint = await deps.create.execute(tenantScopeOf(request.principal), request.body);
        const now = deps.clock.now();
        return { body: { ...endpointView(endpoint, now), secret: endpoint.state.secret } };
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/webhooks/:id', operationId: 'getWebhookEndpoint', tag: 'Webhooks', auth: 'merchant',
      scopes: ['webhooks:read'], successStatus: 200, summary: 'One webhook endpoint with statistics', response: endpointResponse,
      handler: async (request) => {
        const endpoint = await loadEndpoint(tenantScopeOf(request.principal), request.params.id);
        return { body: (await withStatistics([endpoint]))[0] };
      },
    }),
    defineRoute({
      method: 'patch', path: '/v1/webhooks/:id', operationId: 'updateWebhookEndpoint', tag: 'Webhooks', auth: 'merchant',
      scopes: ['webhooks:write'], successStatus: 200, response: endpointResponse,
      summary: 'Edit an endpoint; customHeaders merge (text sets, null removes); enabled false cancels queued deliveries',
      body: {
        type: 'object',
        properties: {
          url: { type: 'string', minLength: 1, maxLength: 2048 },
          description: { type: ['string', 'null'], maxLength: 500 },
          enabledEvents,
          customHeaders: headerMap(true),
          enabled: { type: 'boolean' },
        },
      },
      handler: async (request) => {
        const { endpoint, canceledDeliveries } = await deps.update.execute(tenantScopeOf(request.principal), request.params.id, request.body);
        const view = (await withStatistics([endpoint]))[0];
        return { body: canceledDeliveries === null ? view : { ...view, canceledDeliveries } };
      },
    }),
    defineRoute({
      method: 'delete', path: '/v1/webhooks/:id', operationId: 'deleteWebhookEndpoint', tag: 'Webhooks', auth: 'merchant',
      scopes: ['webhooks:write'], successStatus: 200,
      summary: 'Remove an endpoint (logical: its deliveries and events stay queryable; queued deliveries are canceled)',
      handler: async (request) => {
        const { endpoint, canceledDeliveries } = await deps.remove.execute(tenantScopeOf(request.principal), request.params.id);
        return { body: { object: 'webhook_endpoint', id: endpoint.id, deleted: true, canceledDeliveries } };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/webhooks/:id/rotate-secret', operationId: 'rotateWebhookSecret', tag: 'Webhooks', auth: 'merchant',
      scopes: ['webhooks:write'], successStatus: 201, idempotent: true, response: endpointResponse,
      summary: 'New signing secret (returned once); the previous one keeps signing for 24 h unless gracePeriod is none',
      body: { type: 'object', properties: { gracePeriod: { type: 'string', enum: ['24h', 'none'], default: '24h' } } },
      handler: async (request) => {
        const endpoint = await deps.rotate.execute(tenantScopeOf(request.principal), request.params.id, request.body.gracePeriod ?? '24h');
        return { body: { ...endpointView(endpoint, deps.clock.now()), secret: endpoint.state.secret } };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/webhooks/:id/reveal-secret', operationId: 'revealWebhookSecret', tag: 'Webhooks', auth: 'merchant',
      scopes: ['webhooks:write'], successStatus: 201,
      summary: 'Show the current signing secret; recorded as webhook_endpoint.secret_revealed with who and from where',
      handler: async (request) => {
        const p = request.principal!;
        const ua = request.headers['user-agent'];
        const { endpoint, eventId } = await deps.reveal.execute(tenantScopeOf(p), request.params.id, {
          credentialType: p.kind,
          credentialId: p.apiKeyId ?? (typeof p.session?.sessionId === 'string' ? (p.session.sessionId as string) : null),
          userId: p.userId ?? null,
          ip: request.ip,
          userAgent: typeof ua === 'string' ? ua.slice(0, 300) : null,
          requestId: request.requestId,
        });
        return { body: { object: 'webhook_endpoint_secret', endpointId: endpoint.id, secret: endpoint.state.secret, auditEventId: eventId } };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/webhooks/:id/test', operationId: 'testWebhookEndpoint', tag: 'Webhooks', auth: 'merchant',
      scopes: ['webhooks:write'], successStatus: 201,
      summary: 'Send a signed webhook_endpoint.test event to this endpoint now; answers with what the server returned',
      handler: async (request) => {
        const scope = tenantScopeOf(request.principal);
        const { delivery, error } = await deps.test.execute(scope, request.params.id, request.requestId);
        const endpoint = await loadEndpoint(scope, request.params.id);
        return { body: attemptedDeliveryView(delivery, endpoint.state.url, error) };
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/webhooks/:id/deliveries', operationId: 'listWebhookDeliveries', tag: 'Webhooks', auth: 'merchant',
      scopes: ['webhooks:read'], successStatus: 200, summary: 'Deliveries of an endpoint, newest first',
      query: {
        type: 'object',
        properties: {
          ...PAGE_QUERY_PROPERTIES,
          status: { type: 'string', maxLength: 100 },
          eventType: { type: 'string', minLength: 1, maxLength: 100 },
          createdFrom: { type: 'string', format: 'date-time' },
          createdTo: { type: 'string', format: 'date-time' },
          search: { type: 'string', minLength: 1, maxLength: 128 },
        },
      },
      handler: async (request) => {
        const scope = tenantScopeOf(request.principal);
        const q = request.query as Record<string, string | number | undefined>;
        await deps.transactor.read(async (tx) => {
          if (!(await deps.endpoints.find(tx, scope, request.params.id, { includeDeleted: true }))) throw new NotFoundError('webhook endpoint', request.params.id);
        });
        const limit = Number(q.limit);
        const rows = await deps.readModel.listDeliveries(scope, request.params.id, {
          statuses: parseStatuses(q.status as string | undefined),
          eventType: q.eventType as string | undefined,
          createdFrom: queryDate(q.createdFrom as string | undefined, 'query.createdFrom'),
          createdTo: queryDate(q.createdTo as string | undefined, 'query.createdTo'),
          search: q.search as string | undefined,
          limit,
          startingAfter: q.startingAfter as string | undefined,
        });
        return { body: listBody(rows, limit, deliveryRowView) };
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/webhooks/:id/deliveries/:deliveryId', operationId: 'getWebhookDelivery', tag: 'Webhooks', auth: 'merchant',
      scopes: ['webhooks:read'], successStatus: 200, summary: 'A delivery: exact signed body, headers (extras masked), response (8 KB), attempts',
      handler: async (request) => {
        const found = await deps.readModel.delivery(tenantScopeOf(request.principal), request.params.id, request.params.deliveryId);
        if (!found) throw new NotFoundError('webhook delivery', request.params.deliveryId);
        return { body: deliveryDetailView(found.delivery, found.attempts, found.url) };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/webhooks/:id/deliveries/:deliveryId/retry', operationId: 'retryWebhookDelivery', tag: 'Webhooks',
      auth: 'merchant', scopes: ['webhooks:write'], successStatus: 201,
      summary: 'Queue a delivery again now with attempts reset (also after success); 409 when the endpoint is switched off',
      handler: async (request) => {
        const scope = tenantScopeOf(request.principal);
        await deps.retry.execute(scope, request.params.id, request.params.deliveryId);
        const found = await deps.readModel.delivery(scope, request.params.id, request.params.deliveryId);
        return { body: deliveryDetailView(found!.delivery, found!.attempts, found!.url) };
      },
    }),
  ];
}
