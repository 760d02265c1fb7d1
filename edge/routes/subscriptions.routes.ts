import type { ManageSubscriptions } from '../../application/subscriptions/manage-subscriptions';
import { tenantScopeOf } from '../http/principal';
import { defineRoute, type RouteDefinition } from '../http/route';
import { createSubscriptionBody, listSubscriptionsQuery, subscriptionListResponse, subscriptionResponse } from './subscriptions.schemas';

export interface SubscriptionRouteDeps {
  readonly subscriptions: ManageSubscriptions;
}

const TAG = 'Subscriptions';

/** Subscriptions (contract.md 4; docs/subscriptions.md). Another organization's or environment's is 404. */
export function subscriptionRoutes(deps: SubscriptionRouteDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post', path: '/v1/subscriptions', operationId: 'createSubscription', response: subscriptionResponse, tag: TAG, auth: 'merchant', scopes: ['subscriptions:write'],
      summary: 'Charge a customer\'s saved card every intervalCount intervals from startDate (at once when omitted)', successStatus: 201, idempotent: true, body: createSubscriptionBody,
      handler: async (request) => ({ body: await deps.subscriptions.create(tenantScopeOf(request.principal), request.body) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/subscriptions', operationId: 'listSubscriptions', response: subscriptionListResponse, tag: TAG, auth: 'merchant', scopes: ['subscriptions:read'],
      summary: 'List subscriptions (newest first, cursor paging; by customerId or status)', successStatus: 200, query: listSubscriptionsQuery,
      handler: async (request) => ({ body: await deps.subscriptions.list(tenantScopeOf(request.principal), request.query) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/subscriptions/:id', operationId: 'getSubscription', response: subscriptionResponse, tag: TAG, auth: 'merchant', scopes: ['subscriptions:read'],
      summary: 'Get a subscription', successStatus: 200,
      handler: async (request) => ({ body: await deps.subscriptions.get(tenantScopeOf(request.principal), request.params.id!) }),
    }),
    defineRoute({
      method: 'post', path: '/v1/subscriptions/:id/cancel', operationId: 'cancelSubscription', response: subscriptionResponse, tag: TAG, auth: 'merchant', scopes: ['subscriptions:write'],
      summary: 'Cancel a subscription at once: nothing is charged after it (409 when already canceled)', successStatus: 201, idempotent: true,
      handler: async (request) => ({ body: await deps.subscriptions.cancel(tenantScopeOf(request.principal), request.params.id!) }),
    }),
  ];
}
