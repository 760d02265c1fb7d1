import type { WebhookReadModel } from '../../application/webhook/webhook-read-model';
import { NotFoundError } from '../../domain/shared/domain-error';
import { PAGE_QUERY_PROPERTIES, listBody } from '../http/pagination';
import { tenantScopeOf } from '../http/principal';
import { queryDate } from '../http/query-values';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { JsonSchema } from '../http/validation';
import { eventView } from './webhooks.mappers';

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

// ---- response shapes (documentation only: the OpenAPI document and the typed client) ---------------------------
const eventResponse: JsonSchema = {
  type: 'object',
  required: ['id', 'type', 'apiVersion', 'createdAt', 'environment', 'sequence', 'data'],
  properties: {
    id: { type: 'string', examples: ['evt_01JF3Q8Z4N6V2K7T9W5X1Y3C8D'] },
    type: { type: 'string', examples: ['payment.captured'] },
    apiVersion: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    environment: { type: 'string', enum: ['sandbox', 'live'] },
    sequence: { type: 'integer', minimum: 1 },
    data: { type: 'object', description: 'The object the event is about, as the API shows it (same envelope as webhooks)' },
    deliverySummary: { type: 'object', description: 'Deliveries of this event per state (only with webhooks:read)' },
  },
};
const eventListResponse: JsonSchema = {
  type: 'object',
  required: ['object', 'data', 'hasMore'],
  properties: { object: { type: 'string', const: 'list' }, data: { type: 'array', items: eventResponse }, hasMore: { type: 'boolean' } },
};

/** The event log (spec: Event log). Deliveries are shown only to credentials that also hold webhooks:read. */
export function eventRoutes(readModel: WebhookReadModel): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/v1/events', operationId: 'listEvents', tag: 'Events', auth: 'merchant', scopes: ['events:read'],
      successStatus: 200, summary: 'Events of the environment, newest first by sequence (same envelope as webhooks)', response: eventListResponse,
      query: {
        type: 'object',
        properties: {
          ...PAGE_QUERY_PROPERTIES,
          type: { type: 'string', minLength: 1, maxLength: 100 },
          objectType: { type: 'string', minLength: 1, maxLength: 100 },
          objectId: { type: 'string', minLength: 1, maxLength: 128 },
          createdFrom: { type: 'string', format: 'date-time' },
          createdTo: { type: 'string', format: 'date-time' },
          search: { type: 'string', minLength: 1, maxLength: 128 },
        },
      },
      handler: async (request) => {
        const scope = tenantScopeOf(request.principal);
        const q = request.query as Record<string, string | number | undefined>;
        const limit = Number(q.limit);
        const rows = await readModel.listEvents(scope, {
          type: q.type as string | undefined,
          objectType: q.objectType as string | undefined,
          objectId: q.objectId as string | undefined,
          createdFrom: queryDate(q.createdFrom as string | undefined, 'query.createdFrom'),
          createdTo: queryDate(q.createdTo as string | undefined, 'query.createdTo'),
          search: q.search as string | undefined,
          limit,
          startingAfter: q.startingAfter as string | undefined,
        });
        if (rows === null) throw new NotFoundError('event', q.startingAfter as string);
        const page = rows.slice(0, limit);
        const summaries = request.principal!.scopes.has('webhooks:read') ? await readModel.deliverySummaries(scope, page.map((r) => r.id)) : null;
        return {
          body: listBody(rows, limit, (row) => (summaries ? { ...eventView(row), deliverySummary: summaries.get(row.id) } : eventView(row))),
        };
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/events/:id', operationId: 'getEvent', tag: 'Events', auth: 'merchant', scopes: ['events:read'],
      successStatus: 200, summary: 'One event; with webhooks:read also each delivery per endpoint (removed endpoints flagged)', response: eventResponse,
      handler: async (request) => {
        const scope = tenantScopeOf(request.principal);
        const row = await readModel.event(scope, request.params.id);
        if (!row) throw new NotFoundError('event', request.params.id);
        if (!request.principal!.scopes.has('webhooks:read')) return { body: eventView(row) };
        const deliveries = await readModel.eventDeliveries(scope, row.id);
        return {
          body: {
            ...eventView(row),
            deliveries: deliveries.map((d) => ({
              id: d.id,
              endpointId: d.endpointId,
              endpointUrl: d.endpointUrl,
              endpointDeleted: d.endpointDeleted,
              status: d.status,
              attempts: d.attempts,
              nextRetryAt: iso(d.nextRetryAt),
              responseStatus: d.lastResponse?.status ?? null,
              test: d.isTest,
              createdAt: iso(d.createdAt),
            })),
          },
        };
      },
    }),
  ];
}
