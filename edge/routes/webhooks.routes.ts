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
import { bool, dateTime, deletedResponse, int, listOf, nullable, objectName, record, str } from '../http/response-schemas';
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
  required: ['object', 'id', 'url', 'description', 'enabledEvents', 'customHeaders', 'enabled', 'status', 'consecutiveFailures', 'disabledReason', 'secretRotation', 'environment', 'createdAt', 'updatedAt'],
  properties: {
    object: { type: 'string', enum: ['webhook_endpoint'] },
    id: { type: 'string', example: 'whe_01J...' },
    url: { type: 'string' },
    description: { type: ['string', 'null'] },
    enabledEvents: { type: 'array', items: { type: 'string' } },
    customHeaders: { type: 'object', description: 'Extra headers sent with each delivery (values masked)', additionalProperties: { type: 'string' } },
    enabled: { type: 'boolean' },
    status: { type: 'string', enum: ['active', 'failing', 'disabled', 'auto_disabled'] },
    consecutiveFailures: { type: 'integer' },
    disabledReason: { type: ['string', 'null'] },
    secret: { type: 'string', description: 'Only on creation and rotation' },
    secretRotation: { type: 'object', required: ['previousSecretExpiresAt'], properties: { previousSecretExpiresAt: nullable(dateTime) } },
    environment: { type: 'string', enum: ['sandbox', 'live'] },
    createdAt: dateTime,
    updatedAt: dateTime,
    statistics: { type: 'object', description: 'Reads only (get and list): the last 24 hours of deliveries and the delivery policy' },
    canceledDeliveries: { type: 'integer', description: 'Update only, when it switched the endpoint off: the queued deliveries canceled' },
  },
};

// ---- other response shapes (documentation only) ----------------------------------------------------------------

const eventTypeCatalogResponse: JsonSchema = record({
  object: objectName('webhook_event_type_catalog'),
  allEventsWildcard: { type: 'string', enum: ['*'] },
  groups: {
    type: 'array',
    items: record({
      resource: str,
      wildcard: { type: 'string', examples: ['payment.*'] },
      description: str,
      types: { type: 'array', items: record({ type: str, description: str, emitted: { type: 'boolean', description: 'False: subscribable, not produced in this version' } }) },
    }),
  },
  testEventType: record({ type: { type: 'string', examples: ['webhook_endpoint.test'] }, description: str, subscribable: { type: 'boolean', enum: [false] } }),
});

const deliveryWindow: JsonSchema = record({ deliveries: int, succeeded: int, failed: int, exhausted: int, successRate: nullable({ type: 'number', description: 'Null without deliveries' }) });
const webhookSummaryResponse: JsonSchema = record({
  object: objectName('webhook_summary'),
  endpoints: record({ total: int, active: int, failing: int, switchedOff: int, disabled: int, autoDisabled: int }),
  last24Hours: deliveryWindow,
  previous24Hours: deliveryWindow,
  change: record({ deliveries: int, successRate: nullable({ type: 'number' }) }),
});

const revealedSecretResponse: JsonSchema = record({
  object: objectName('webhook_endpoint_secret'),
  endpointId: str,
  secret: { type: 'string', description: 'The current signing secret', examples: ['whsec_...'] },
  auditEventId: { type: 'string', description: 'The webhook_endpoint.secret_revealed event that recorded who asked' },
});

const deliveryStatus: JsonSchema = { type: 'string', enum: [...DELIVERY_STATUSES] };
const deliveryRowProperties: Record<string, JsonSchema> = {
  object: objectName('webhook_delivery'),
  id: str,
  endpointId: str,
  eventId: str,
  eventType: str,
  status: deliveryStatus,
  attempts: int,
  nextRetryAt: nullable(dateTime),
  test: { type: 'boolean', description: 'A webhook_endpoint.test delivery' },
  response: nullable(record({ status: nullable(int), truncated: bool })),
  createdAt: dateTime,
  updatedAt: dateTime,
};
const storedAnswer: JsonSchema = nullable(record({ status: nullable(int), body: { type: 'string', description: 'At most 8 KB' }, truncated: bool }));
const deliveryDetailResponse: JsonSchema = record({
  ...deliveryRowProperties,
  request: record({
    method: { type: 'string', enum: ['POST'] },
    url: nullable(str),
    headers: nullable({ type: 'object', description: 'As sent (extra header values masked, no signature)', additionalProperties: str }),
    body: { type: 'string', description: 'The exact signed body' },
  }),
  response: storedAnswer,
  attemptHistory: {
    type: 'array',
    items: record({ number: int, startedAt: dateTime, durationMs: int, responseStatus: nullable(int), succeeded: bool, error: nullable(str) }),
  },
});
const attemptedDeliveryResponse: JsonSchema = record({
  ...deliveryRowProperties,
  request: record({ method: { type: 'string', enum: ['POST'] }, url: str, body: { type: 'string', description: 'The exact signed body' } }),
  response: storedAnswer,
  error: nullable({ type: 'string', description: "Why the endpoint gave no answer (connection refused, timeout, blocked address)" }),
});

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
      response: eventTypeCatalogResponse,
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
      response: webhookSummaryResponse,
      handler: async (request) => ({
        body: { object: 'webhook_summary', ...(await deps.readModel.summary(tenantScopeOf(request.principal), deps.clock.now())) },
      }),
    }),
    defineRoute({
      method: 'get', path: '/v1/webhooks', operationId: 'listWebhookEndpoints', tag: 'Webhooks', auth: 'merchant',
      scopes: ['webhooks:read'], successStatus: 200, summary: 'Webhook endpoints of the environment, with statistics (never the secret)',
      response: listOf(endpointResponse),
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
      response: deletedResponse('webhook_endpoint', { canceledDeliveries: { type: 'integer', description: 'Queued deliveries canceled' } }),
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
      response: revealedSecretResponse,
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
      response: attemptedDeliveryResponse,
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
      response: listOf(record(deliveryRowProperties)),
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
      response: deliveryDetailResponse,
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
      response: deliveryDetailResponse,
      handler: async (request) => {
        const scope = tenantScopeOf(request.principal);
        await deps.retry.execute(scope, request.params.id, request.params.deliveryId);
        const found = await deps.readModel.delivery(scope, request.params.id, request.params.deliveryId);
        return { body: deliveryDetailView(found!.delivery, found!.attempts, found!.url) };
      },
    }),
  ];
}
