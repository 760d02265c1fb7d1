/**
 * Times every acquirer and antifraud call of the payment pipeline, at the port: a wrapper around `PaymentConnectors`
 * whose opened gateways observe each call's latency by connector slug, account id, rpc and gRPC status (OK for an
 * answer, a decline or a verdict included; the failure's transport code otherwise). The domain and the use cases
 * know nothing of it.
 */
import type { PaymentConnectors } from '../../domain/ports/payment-connectors';
import { isConnectorFailure } from '../../domain/shared/connector-failure';
import type { ServiceMetrics } from './service-metrics';

/** Gateway method -> the AcquirerConnector / AntifraudConnector rpc it calls (the label operators know from the protos). */
const RPC_OF: Readonly<Record<string, string>> = {
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
  analyze: 'Analyze',
};

/** What opens a gateway, and which kind of connector it opens. */
const OPENERS: Readonly<Record<string, 'acquirer' | 'antifraud'>> = { open: 'acquirer', openAntifraud: 'antifraud' };

interface Opened {
  readonly account: { readonly id: string; readonly connectorSlug: string };
  readonly gateway: object;
}

/**
 * Every member of `connectors` is passed through (an optional one stays absent when it is), so the wrapper keeps
 * up with the port; only the gateways `open` and `openAntifraud` hand out are timed.
 */
export function instrumentedConnectors<C extends PaymentConnectors>(connectors: C, metrics: ServiceMetrics): C {
  return new Proxy(connectors, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const kind = typeof property === 'string' ? OPENERS[property] : undefined;
      if (!kind) return value.bind(target);
      return async (...args: unknown[]) => {
        const opened = (await value.apply(target, args)) as Opened | null;
        if (!opened) return opened;
        return { ...opened, gateway: timedGateway(opened.gateway, metrics, kind, opened.account.connectorSlug, opened.account.id) };
      };
    },
  });
}

function timedGateway<G extends object>(gateway: G, metrics: ServiceMetrics, kind: 'acquirer' | 'antifraud', connector: string, account: string): G {
  return new Proxy(gateway, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      const rpc = typeof property === 'string' ? RPC_OF[property] : undefined;
      if (typeof value !== 'function') return value;
      if (!rpc) return value.bind(target);
      return async (...args: unknown[]) => {
        const started = performance.now();
        let status = 'OK';
        try {
          return await value.apply(target, args);
        } catch (error) {
          status = isConnectorFailure(error) ? error.transportCode ?? error.kind.toUpperCase() : 'UNKNOWN';
          throw error;
        } finally {
          metrics.observeConnectorCall({ kind, connector, account, rpc, grpc_status: status }, (performance.now() - started) / 1000);
        }
      };
    },
  });
}
