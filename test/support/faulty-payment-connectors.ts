import type { AcquirerGateway } from '../../domain/ports/acquirer-gateway';
import type { PaymentConnectors } from '../../domain/ports/payment-connectors';

/**
 * Wraps the payment pipeline's connector access so that chosen accounts' acquirer stops answering: their
 * authorize calls reach the sandbox adapter (real gRPC) with the sandbox's `timeout` scenario token, so the
 * sandbox sleeps past the caller's deadline and the gateway reports a real deadline timeout. Other accounts
 * are untouched.
 */
export class TimeoutInjector {
  readonly accountIds = new Set<string>();

  decorate = (inner: PaymentConnectors): PaymentConnectors => ({
    accounts: (scope) => inner.accounts(scope),
    open: async (scope, accountId) => {
      const opened = await inner.open(scope, accountId);
      if (!opened || !this.accountIds.has(accountId)) return opened;
      const gateway: AcquirerGateway = Object.create(opened.gateway) as AcquirerGateway;
      gateway.authorize = (input) => opened.gateway.authorize({ ...input, source: { ...input.source, token: 'tok_sandbox_timeout' } });
      return { ...opened, gateway };
    },
  });
}
