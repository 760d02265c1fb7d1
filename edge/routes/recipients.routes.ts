import type { ManageRecipients } from '../../application/recipients/manage-recipients';
import { tenantScopeOf } from '../http/principal';
import { defineRoute, type RouteDefinition } from '../http/route';
import { createRecipientBody, listRecipientsQuery, recipientListResponse, recipientResponse, updateRecipientBody } from './recipients.schemas';

export interface RecipientRouteDeps {
  readonly recipients: ManageRecipients;
}

/** Split recipients (contract.md 4 and 7). A recipient of another organization or environment is 404. */
export function recipientRoutes(deps: RecipientRouteDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post', path: '/v1/recipients', operationId: 'createRecipient', response: recipientResponse, tag: 'Recipients', auth: 'merchant', scopes: ['recipients:write'],
      summary: 'Create a split recipient', successStatus: 201, idempotent: true, body: createRecipientBody,
      handler: async (request) => ({ body: await deps.recipients.create(tenantScopeOf(request.principal), request.body) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/recipients', operationId: 'listRecipients', response: recipientListResponse, tag: 'Recipients', auth: 'merchant', scopes: ['recipients:read'],
      summary: 'List split recipients (newest first, cursor paging)', successStatus: 200, query: listRecipientsQuery,
      handler: async (request) => ({ body: await deps.recipients.list(tenantScopeOf(request.principal), request.query) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/recipients/:id', operationId: 'getRecipient', response: recipientResponse, tag: 'Recipients', auth: 'merchant', scopes: ['recipients:read'],
      summary: 'Get a split recipient', successStatus: 200,
      handler: async (request) => ({ body: await deps.recipients.get(tenantScopeOf(request.principal), request.params.id!) }),
    }),
    defineRoute({
      method: 'patch', path: '/v1/recipients/:id', operationId: 'updateRecipient', response: recipientResponse, tag: 'Recipients', auth: 'merchant', scopes: ['recipients:write'],
      summary: 'Update a split recipient (omitted fields stay; null clears email; emits recipient.updated when something changed)', successStatus: 200, body: updateRecipientBody,
      handler: async (request) => ({ body: await deps.recipients.update(tenantScopeOf(request.principal), request.params.id!, request.body ?? {}) }),
    }),
  ];
}
