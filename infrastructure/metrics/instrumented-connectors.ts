/**
 * Times every acquirer call of the payment pipeline, at the port: a wrapper around `PaymentConnectors` whose opened
 * gateways observe each call's latency by connector slug, account id, rpc and gRPC status (OK for an answer, a
 * decline included; the failure's transport code otherwise). The domain and the use cases know nothing of it.
 */
import type { AcquirerGateway } from '../../domain/ports/acquirer-gateway';
import type { PaymentConnectors } from '../../domain/ports/payment-connectors';
import { isConnectorFailure } from '../../domain/shared/connector-failure';
import type { ServiceMetrics } from './service-metrics';

/** Gateway method -> the AcquirerConnector rpc it calls (the label operators know from the proto). */
const RPC_OF: Readonly<Partial<Record<keyof AcquirerGateway, string>>> = {
  describe: 'Describe',
  verifyCredentials: 'VerifyCredentials',
  authorize: 'Authorize',
  capture: 'Capture',
  void: 'Void',
  refund: 'Refund',
  zeroAuth: 'ZeroAuth',
  createPixCharge: 'CreatePixCharge',
  createBoleto: 'CreateBoleto',
  queryCharge: 'QueryCharge',
  cancelCharge: 'CancelCharge',
  createTokenizationSession: 'CreateTokenizationSession',
  authenticate3ds: 'Authenticate3ds',
};

export function instrumentedConnectors(connectors: PaymentConnectors, metrics: ServiceMetrics): PaymentConnectors {
  return {
    accounts: (scope) => connectors.accounts(scope),
    async open(scope, accountId) {
      const opened = await connectors.open(scope, accountId);
      if (!opened) return opened;
      return { ...opened, gateway: timedGateway(opened.gateway, metrics, opened.account.connectorSlug, opened.account.id) };
    },
  };
}

function timedGateway(gateway: AcquirerGateway, metrics: ServiceMetrics, connector: string, account: string): AcquirerGateway {
  return new Proxy(gateway, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      const rpc = typeof property === 'string' ? RPC_OF[property as keyof AcquirerGateway] : undefined;
      if (!rpc || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const started = performance.now();
        let status = 'OK';
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } catch (error) {
          status = isConnectorFailure(error) ? error.transportCode ?? error.kind.toUpperCase() : 'UNKNOWN';
          throw error;
        } finally {
          metrics.observeConnectorCall({ kind: 'acquirer', connector, account, rpc, grpc_status: status }, (performance.now() - started) / 1000);
        }
      };
    },
  });
}
