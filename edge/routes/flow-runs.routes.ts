import type { ManualRunInput, RunManualFlow } from '../../application/flows/run-manual-flow';
import type { JsonSchema } from '../http/validation';
import { tenantScopeOf } from '../http/principal';
import { defineRoute, type RouteDefinition } from '../http/route';
import { metadataSchema } from './payments.schemas';

const RUN_FLOW_BODY: JsonSchema = {
  type: 'object',
  properties: {
    paymentId: { type: 'string', minLength: 1, maxLength: 64, description: 'Run over this payment\'s facts' },
    input: {
      type: 'object',
      description: 'Without paymentId: the facts the run decides on (omitted ones: amount 0, BRL, 1 installment, card, automatic, merchant, no splits)',
      properties: {
        amount: { type: 'integer', minimum: 0, maximum: 9_999_999_999 },
        currency: { type: 'string', minLength: 3, maxLength: 3 },
        installments: { type: 'integer', minimum: 1, maximum: 24 },
        methodType: { type: 'string', enum: ['card', 'debit_card', 'pix', 'boleto'] },
        captureMethod: { type: 'string', enum: ['automatic', 'manual'] },
        initiator: { type: 'string', enum: ['customer', 'merchant'] },
        hasSplits: { type: 'boolean' },
        customerId: { type: 'string', minLength: 1, maxLength: 64 },
        card: { type: 'object', properties: { brand: { type: 'string', minLength: 1, maxLength: 32 }, bin: { type: 'string', pattern: '^[0-9]{6,8}$' } } },
        metadata: metadataSchema,
      },
    },
  },
  examples: [{ input: { amount: 150000, metadata: { segment: 'b2b' } } }],
};

const FLOW_RUN_RESPONSE: JsonSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['flow_run'] },
    id: { type: 'string', example: 'frun_01J...' },
    flowId: { type: 'string' },
    version: { type: 'integer' },
    paymentId: { type: ['string', 'null'] },
    facts: { type: 'object' },
    outcome: { type: 'string', enum: ['approved', 'declined', 'stopped', 'flow_incomplete'] },
    steps: { type: 'array', items: { type: 'object', properties: { nodeId: { type: 'string' }, type: { type: 'string' }, port: { type: ['string', 'null'] }, note: { type: 'string' } } } },
    variables: { type: 'object' },
    environment: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

/** Manual runs of flows whose trigger is `manual` (contract.md 4; docs/flows.md, "Manual runs"). */
export function flowRunRoutes(deps: { readonly run: RunManualFlow }): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post', path: '/v1/flows/:id/run', operationId: 'runFlow', tag: 'Flows', auth: 'merchant', scopes: ['flows:write'],
      summary: 'Run a published manual flow over a payment\'s facts or the given input; records the run (409 not published, 422 not manual)',
      body: RUN_FLOW_BODY, successStatus: 201, response: FLOW_RUN_RESPONSE, idempotent: true,
      handler: async (request) => {
        const body = (request.body ?? {}) as { paymentId?: string; input?: ManualRunInput };
        return { body: await deps.run.execute(tenantScopeOf(request.principal), request.params.id!, body) };
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/flows/:id/runs/:runId', operationId: 'getFlowRun', tag: 'Flows', auth: 'merchant', scopes: ['flows:read'],
      summary: 'A recorded manual run of the flow', successStatus: 200, response: FLOW_RUN_RESPONSE,
      handler: async (request) => ({ body: await deps.run.get(tenantScopeOf(request.principal), request.params.id!, request.params.runId!) }),
    }),
  ];
}
