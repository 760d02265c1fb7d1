/**
 * Pix and boleto routes besides creation: inbound notices from banks and payment providers, at the address shown as an
 * account's webhookUrl (no API key: the path's token authenticates the sender; answered 200 as soon as the notice is
 * read, what it says checked with the bank afterwards), and the sandbox's simulate (plays the bank in tests).
 */
import type { BankChargeOperations } from '../../application/payments/bank-charge-operations';
import type { ReceiveBankNotice } from '../../application/payments/receive-bank-notice';
import { tenantScopeOf } from '../http/principal';
import { defineRoute, type RouteDefinition } from '../http/route';
import { paymentResponse } from './payments.schemas';

export interface BankChargeRouteDeps {
  readonly notices: ReceiveBankNotice;
  readonly operations: BankChargeOperations;
}

export function bankChargeRoutes(deps: BankChargeRouteDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post', path: '/v1/connector-webhooks/:accountId/:token', operationId: 'receiveConnectorNotice', tag: 'Connectors', auth: 'none', successStatus: 200,
      summary: 'Inbound Pix or boleto notice from a bank or payment provider',
      description:
        'Posted by the bank to the webhookUrl of a connector account. Answers 200 on reading the notice, then checks each cited charge by ' +
        'querying the bank, so a forged notice pays nothing. Body: {"acquirerPaymentId": "..."} or {"charges": [{"acquirerPaymentId": "..."}]}. ' +
        'A wrong token or an account that does not exist: 404.',
      body: { type: 'object', additionalProperties: true },
      response: {
        type: 'object',
        required: ['received', 'charges'],
        properties: {
          received: { type: 'boolean', enum: [true] },
          charges: { type: 'integer', minimum: 0, description: "The cited charges this account issued, each checked with the bank after this answer" },
        },
      },
      handler: async (request) => {
        const received = await deps.notices.execute({ accountId: request.params.accountId!, token: request.params.token!, body: request.body });
        // Not awaited: the sender is answered now; the checks run after (their failures are logged by the use case).
        void received.checked;
        return { body: { received: true, charges: received.charges } };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/payments/:id/simulate', operationId: 'simulatePayment', response: paymentResponse, tag: 'Payments', auth: 'merchant', scopes: ['payments:write'],
      summary: 'Sandbox: pay or let lapse a Pix or boleto charge',
      description:
        'Only for Pix or boleto charges issued by the service\'s sandbox connector. outcome paid: the bank confirms, the payment is captured ' +
        '(payment.captured); expired: the charge lapses, the payment is canceled (payment.canceled). 409 when the charge is not awaiting payment; ' +
        '422 for a card payment or a charge another connector issued.',
      successStatus: 200,
      body: { type: 'object', required: ['outcome'], additionalProperties: false, properties: { outcome: { type: 'string', enum: ['paid', 'expired'] } } },
      handler: async (request) => {
        const body = request.body as { outcome: 'paid' | 'expired' };
        return { body: await deps.operations.simulate({ scope: tenantScopeOf(request.principal), paymentId: request.params.id!, outcome: body.outcome }) };
      },
    }),
  ];
}
