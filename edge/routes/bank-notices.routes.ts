/**
 * Inbound Pix and boleto notices from banks and payment providers, at the address shown as an account's webhookUrl.
 * No API key: the path's token authenticates the sender. The answer is 200 as soon as the notice is read; what it
 * says is checked with the bank afterwards (application/payments/receive-bank-notice.ts).
 */
import type { ReceiveBankNotice } from '../../application/payments/receive-bank-notice';
import { defineRoute, type RouteDefinition } from '../http/route';

export interface BankNoticeRouteDeps {
  readonly notices: ReceiveBankNotice;
}

export function bankNoticeRoutes(deps: BankNoticeRouteDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post', path: '/v1/connector-webhooks/:accountId/:token', operationId: 'receiveConnectorNotice', tag: 'Connector accounts', auth: 'none', successStatus: 200,
      summary: 'Inbound Pix or boleto notice from a bank or payment provider',
      description:
        'Posted by the bank to the webhookUrl of a connector account. Answers 200 on reading the notice, then checks each cited charge by ' +
        'querying the bank, so a forged notice pays nothing. Body: {"acquirerPaymentId": "..."} or {"charges": [{"acquirerPaymentId": "..."}]}. ' +
        'A wrong token or an account that does not exist: 404.',
      body: { type: 'object', additionalProperties: true },
      handler: async (request) => {
        const received = await deps.notices.execute({ accountId: request.params.accountId!, token: request.params.token!, body: request.body });
        // Not awaited: the sender is answered now; the checks run after (their failures are logged by the use case).
        void received.checked;
        return { body: { received: true, charges: received.charges } };
      },
    }),
  ];
}
