import type { AcquirerGateway } from '../../domain/ports/acquirer-gateway';
import type { PaymentConnectors } from '../../domain/ports/payment-connectors';
import { ConnectorFailure } from '../../domain/shared/connector-failure';

type MoneyOperation = 'capture' | 'void' | 'refund';

/**
 * Wraps the payment pipeline's connector access so that chosen accounts' acquirer stops answering: their
 * authorize calls reach the sandbox adapter (real gRPC) with the sandbox's `timeout` scenario token, so the
 * sandbox sleeps past the caller's deadline and the gateway reports a real deadline timeout. Other accounts
 * are untouched.
 *
 * `loseNextAnswer(kind)` makes the next capture, void or refund on any account reach the sandbox (which executes
 * it) and then report a deadline timeout, as an answer lost on its way back would; `operationKeys` records the
 * idempotency key of every such call.
 */
export class TimeoutInjector {
  readonly accountIds = new Set<string>();
  readonly operationKeys: Array<{ kind: MoneyOperation; idempotencyKey: string }> = [];
  private readonly lose = new Set<MoneyOperation>();

  loseNextAnswer(kind: MoneyOperation): void {
    this.lose.add(kind);
  }

  decorate = (inner: PaymentConnectors): PaymentConnectors => ({
    accounts: (scope) => inner.accounts(scope),
    open: async (scope, accountId) => {
      const opened = await inner.open(scope, accountId);
      if (!opened) return opened;
      const gateway: AcquirerGateway = Object.create(opened.gateway) as AcquirerGateway;
      for (const kind of ['capture', 'void', 'refund'] as const) {
        const call = opened.gateway[kind].bind(opened.gateway) as (input: { idempotencyKey: string }) => ReturnType<AcquirerGateway['refund']>;
        (gateway as unknown as Record<MoneyOperation, typeof call>)[kind] = async (input) => {
          this.operationKeys.push({ kind, idempotencyKey: input.idempotencyKey });
          const output = await call(input);
          if (this.lose.delete(kind)) throw new ConnectorFailure('timeout', 'deadline exceeded (injected: the answer was lost)', { outcomeUnknown: true });
          return output;
        };
      }
      if (this.accountIds.has(accountId)) gateway.authorize = (input) => opened.gateway.authorize({ ...input, source: { ...input.source, token: 'tok_sandbox_timeout' } });
      return { ...opened, gateway };
    },
  });
}
