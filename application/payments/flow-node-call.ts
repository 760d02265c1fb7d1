/**
 * The calls of a flow's antifraud and zero_auth nodes (domain/flow-run/flow-node-calls.ts), made by the executor
 * outside any transaction, under the gateway's deadline. Neither moves money, so each answers with data whatever
 * happens: an antifraud account that cannot be opened or a provider that fails or times out is the `error`
 * recommendation; a zero-value authorization that cannot be made is `unavailable` (it says nothing about the card).
 * The idempotency key names the payment and the node, so a call repeated after a crash gets the first answer.
 */
import type { FlowAction } from '../../domain/flow-run/flow-step';
import type { NodeCallResult } from '../../domain/flow-run/flow-node-calls';
import type { AuthorizeRequest } from '../../domain/ports/payment-recovery';
import type { TenantScope } from '../../domain/shared/environment';
import { isConnectorFailure } from '../../domain/shared/connector-failure';
import type { PaymentDeps } from './payment-deps';

export type NodeCallAction = Extract<FlowAction, { kind: 'call_node' }>;

export class FlowNodeCalls {
  constructor(private readonly deps: PaymentDeps) {}

  call(scope: TenantScope, request: AuthorizeRequest, methodType: string, action: NodeCallAction): Promise<NodeCallResult> {
    return action.call === 'antifraud' ? this.analyze(scope, request, methodType, action) : this.verifyCard(scope, request, action);
  }

  private async analyze(scope: TenantScope, request: AuthorizeRequest, methodType: string, action: NodeCallAction): Promise<NodeCallResult> {
    const assessmentId = this.deps.ids.next('afa_');
    const noVerdict = (provider: string): NodeCallResult => ({
      call: 'antifraud',
      analysis: { assessmentId, connectorAccountId: action.accountId, provider, recommendation: 'error', score: null, triggeredRules: [] },
    });
    const opened = await this.deps.connectors.openAntifraud?.(scope, action.accountId).catch(() => null);
    if (!opened || !opened.account.enabled) return noVerdict(opened?.account.connectorSlug ?? action.accountId);
    try {
      const output = await opened.gateway.analyze({
        credentials: opened.credentials,
        idempotencyKey: `${request.paymentId}.${action.nodeId}`,
        paymentId: request.paymentId,
        amount: request.amount,
        currency: request.currency,
        methodType,
        ...(request.source?.type === 'card' ? { source: request.source } : {}),
        ...(request.customer ? { customer: request.customer } : {}),
        ...(request.items ? { items: request.items } : {}),
        ...(request.fraudData ? { fraudData: request.fraudData } : {}),
      });
      return {
        call: 'antifraud',
        analysis: {
          assessmentId,
          connectorAccountId: opened.account.id,
          provider: opened.account.connectorSlug,
          recommendation: output.recommendation,
          score: output.score,
          triggeredRules: [...output.triggeredRules],
        },
      };
    } catch (error) {
      if (!isConnectorFailure(error)) throw error;
      return noVerdict(opened.account.connectorSlug);
    }
  }

  private async verifyCard(scope: TenantScope, request: AuthorizeRequest, action: NodeCallAction): Promise<NodeCallResult> {
    const unavailable: NodeCallResult = { call: 'zero_auth', verification: { status: 'unavailable', connectorAccountId: action.accountId, rawCode: null } };
    if (!request.source) return unavailable;
    const opened = await this.deps.connectors.open(scope, action.accountId).catch(() => null);
    if (!opened) return unavailable;
    try {
      const output = await opened.gateway.zeroAuth({ credentials: opened.credentials, idempotencyKey: `${request.paymentId}.${action.nodeId}`, source: request.source });
      return { call: 'zero_auth', verification: { status: output.status === 'approved' ? 'valid' : 'invalid', connectorAccountId: action.accountId, rawCode: output.rawCode } };
    } catch (error) {
      if (!isConnectorFailure(error)) throw error;
      return unavailable;
    }
  }
}
