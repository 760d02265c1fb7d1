import { expect } from 'chai';
import type { PaymentConnectors } from '../../../../domain/ports/payment-connectors';
import { ConnectorFailure } from '../../../../domain/shared/connector-failure';
import { instrumentedConnectors } from '../../../../infrastructure/metrics/instrumented-connectors';
import { ServiceMetrics } from '../../../../infrastructure/metrics/service-metrics';

const account = { id: 'ca_1', connectorSlug: 'sandbox', enabled: true, capabilities: ['card'], costBasisPoints: null, createdAt: new Date(0), name: 'one' };

/** A hand-written connectors port: authorize answers or fails as told; analyze answers. */
function fakeConnectors(authorize: () => Promise<unknown>, withAntifraud: boolean): PaymentConnectors {
  const connectors: Record<string, unknown> = {
    accounts: async () => [account],
    open: async (_scope: unknown, accountId: string) => (accountId === 'ca_1' ? { account, gateway: { authorize, close: () => 'closed' }, credentials: {} } : null),
  };
  if (withAntifraud) {
    connectors.openAntifraud = async () => ({ account: { id: 'ca_af', connectorSlug: 'sandbox-antifraud', enabled: true }, gateway: { analyze: async () => ({ verdict: 'approve' }) }, credentials: {} });
  }
  return connectors as unknown as PaymentConnectors;
}

async function countOf(metrics: ServiceMetrics, labels: Record<string, string>): Promise<number> {
  const values = (await metrics.connectorCalls.get()).values.filter(
    (v) => v.metricName === 'pos_connector_call_duration_seconds_count' && Object.entries(labels).every(([k, value]) => (v.labels as Record<string, unknown>)[k] === value),
  );
  return values.reduce((sum, v) => sum + v.value, 0);
}

const scope = { organizationId: 'org_1', environment: 'sandbox' as const };

describe('instrumentedConnectors', () => {
  it('times acquirer calls by connector, account, rpc and gRPC status, answers and failures alike', async () => {
    const metrics = new ServiceMetrics();
    let fail = false;
    const connectors = instrumentedConnectors(
      fakeConnectors(async () => {
        if (fail) throw new ConnectorFailure('technical', 'down', { transportCode: 'UNAVAILABLE' });
        return { status: 'declined' };
      }, false),
      metrics,
    );
    const opened = (await connectors.open(scope, 'ca_1'))!;
    expect(await opened.gateway.authorize({} as never)).to.deep.equal({ status: 'declined' });
    fail = true;
    await expect(opened.gateway.authorize({} as never)).to.be.rejectedWith(ConnectorFailure);
    expect(await countOf(metrics, { kind: 'acquirer', connector: 'sandbox', account: 'ca_1', rpc: 'Authorize', grpc_status: 'OK' })).to.equal(1);
    expect(await countOf(metrics, { kind: 'acquirer', account: 'ca_1', rpc: 'Authorize', grpc_status: 'UNAVAILABLE' })).to.equal(1);
    expect((opened.gateway as unknown as { close(): string }).close()).to.equal('closed');
    expect(await connectors.open(scope, 'ca_missing')).to.equal(null);
    expect(await connectors.accounts(scope)).to.have.length(1);
  });

  it('keeps an optional member absent when the port lacks it, and times antifraud calls when it has it', async () => {
    const metrics = new ServiceMetrics();
    expect('openAntifraud' in instrumentedConnectors(fakeConnectors(async () => ({}), false), metrics)).to.equal(false);
    const connectors = instrumentedConnectors(fakeConnectors(async () => ({}), true), metrics);
    // Read through a structural type: the port gained openAntifraud with the flows' antifraud node.
    const withAntifraud = connectors as unknown as { openAntifraud(s: typeof scope, id: string): Promise<{ gateway: { analyze(input: unknown): Promise<unknown> } }> };
    const opened = await withAntifraud.openAntifraud(scope, 'ca_af');
    expect(await opened.gateway.analyze({})).to.deep.equal({ verdict: 'approve' });
    expect(await countOf(metrics, { kind: 'antifraud', connector: 'sandbox-antifraud', account: 'ca_af', rpc: 'Analyze', grpc_status: 'OK' })).to.equal(1);
  });
});
