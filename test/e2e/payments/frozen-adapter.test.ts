import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { eventually } from '../../support/eventually';
import { IDENTITY_MODULE } from '../../../infrastructure/main/identity.module';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { paymentsModule } from '../../../infrastructure/main/payments.module';
import { GrpcAcquirerGateway } from '../../../infrastructure/grpc/grpc-acquirer.gateway';
import type { AcquirerGateway } from '../../../domain/ports/acquirer-gateway';
import type { PaymentConnectors } from '../../../domain/ports/payment-connectors';
import { moduleList } from '../../../infrastructure/main/module';
import { NO_FLOWS_MODULE } from '../../support/no-flows-module';
import type { ConnectorsServices } from '../../../infrastructure/main/connectors.module';

const ROOT = path.resolve(__dirname, '../../..');
const DEADLINE_MS = 500;

/** The sandbox acquirer as an OS process of its own (distributed mode), so it can be frozen with SIGSTOP. */
function startAdapterProcess(): Promise<{ child: ChildProcess; address: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(ROOT, 'infrastructure/main/connector-process.ts'), 'sandbox'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the adapter did not start: ${out}`)), 15_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.includes('connector adapter listening'));
      if (line) {
        clearTimeout(timer);
        resolve({ child, address: (JSON.parse(line) as { address: string }).address });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`the adapter exited with ${code}: ${out}`)));
  });
}

/**
 * Accounts in `frozen` reach the adapter process instead of the embedded sandbox. A re-send of an attempt id already
 * sent (the reconciliation's) waits at `resends` until the test opens it, so the test can look at what the frozen
 * call did before the reconciliation acts.
 */
class FrozenAdapterAccounts {
  readonly frozen = new Set<string>();
  gateway!: GrpcAcquirerGateway;
  private readonly sentKeys = new Set<string>();
  private openResends!: () => void;
  private readonly resendsOpen = new Promise<void>((resolve) => (this.openResends = resolve));
  private reachResend!: (at: number) => void;
  /** When the first re-send reached the gate (epoch ms). */
  readonly resendReached = new Promise<number>((resolve) => (this.reachResend = resolve));

  openResendGate(): void {
    this.openResends();
  }

  decorate = (inner: PaymentConnectors): PaymentConnectors => ({
    accounts: (scope) => inner.accounts(scope),
    open: async (scope, accountId) => {
      const opened = await inner.open(scope, accountId);
      if (!opened || !this.frozen.has(accountId)) return opened;
      const gateway: AcquirerGateway = Object.create(this.gateway) as AcquirerGateway;
      gateway.authorize = async (input) => {
        if (this.sentKeys.has(input.idempotencyKey)) {
          this.reachResend(Date.now());
          await this.resendsOpen;
        }
        this.sentKeys.add(input.idempotencyKey);
        return this.gateway.authorize(input);
      };
      return { ...opened, gateway };
    },
  });
}

/**
 * Issue 22 item 11: an acquirer adapter frozen (SIGSTOP) for longer than the core's connector deadline while the
 * payment falls back to a second account, then resumed (SIGCONT). The call it reads late executes nothing (here
 * grpc-js already drops it for the core's cancellation, which arrives with it; a call whose cancellation is lost, e.g.
 * behind a proxy, is refused by its passed connector-deadline-at: test/contract/acquirer-contract.ts, Deadline); the
 * reconciliation worker takes the timed-out attempt up within seconds, and what its
 * own re-send charges is refunded at once.
 */
describe('a frozen acquirer adapter (SIGSTOP past the connector deadline) while the payment falls back', function () {
  this.timeout(60_000);
  const accounts = new FrozenAdapterAccounts();
  let adapter: { child: ChildProcess; address: string };
  let service: TestService<ConnectorsServices>;

  const account = async (merchant: Merchant, name: string, costBasisPoints: number) => {
    const r = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name, credentials: { merchantId: `m_${name}_${Math.random().toString(36).slice(2)}`, apiKey: 'k1' }, costBasisPoints });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body.id as string;
  };

  before(async () => {
    adapter = await startAdapterProcess();
    accounts.gateway = new GrpcAcquirerGateway(adapter.address, { deadlineMs: DEADLINE_MS, slug: 'sandbox' });
    service = await startTestServiceWith(moduleList().with(IDENTITY_MODULE).with(NO_FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule({ decorateConnectors: accounts.decorate, recoveryScanIntervalMs: 200 })), {
      transport: 'in-process',
      config: { connectorDeadlineMs: DEADLINE_MS },
    });
  });
  after(async () => {
    accounts.openResendGate();
    if (adapter && adapter.child.exitCode === null) {
      adapter.child.kill('SIGCONT');
      adapter.child.kill('SIGTERM');
    }
    accounts.gateway?.close();
    await service?.stop();
  });

  it('the late call executes nothing; the reconciliation takes the attempt up within seconds and refunds what its re-send charged', async () => {
    const merchant = await service.merchant('Frozen adapter');
    const cheap = await account(merchant, 'cheap', 100);
    const dear = await account(merchant, 'dear', 300);
    accounts.frozen.add(cheap);
    const credentials = async () => (await service.services.connectorAccounts.open({ organizationId: merchant.organizationId, environment: 'sandbox' }, cheap))!.credentials;

    adapter.child.kill('SIGSTOP');
    const r = await merchant.sandbox.post('/v1/payments', { amount: 9_900, captureMethod: 'automatic', card: { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111' } });
    const answeredAt = Date.now();
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body).to.include({ status: 'captured', connectorAccountId: dear, hasFallback: true });
    const timedOut = r.body.attempts[0];
    expect(timedOut).to.include({ connectorAccountId: cheap, outcome: 'timeout' });

    // The reconciliation worker claims the timed-out attempt within seconds (it used to wait for a loop of batches).
    const reached = await accounts.resendReached;
    expect(reached - answeredAt, 'ms from the payment answer to the reconciliation re-send').to.be.below(3_000);

    // Resumed: the adapter reads the frozen Authorize now, past its deadline. A query on the same connection is read
    // after it, so its answer shows what the late call did: nothing.
    adapter.child.kill('SIGCONT');
    const seen = await accounts.gateway.queryCharge({ credentials: await credentials(), idempotencyKey: timedOut.id });
    expect(seen.status, 'the frozen call executed late').to.equal('not_found');

    // The reconciliation's re-send acts now (once, same key) and what it captured is refunded at once.
    const released = Date.now();
    accounts.openResendGate();
    const view = await eventually(async () => {
      const body = (await merchant.sandbox.get(`/v1/payments/${r.body.id}`)).body;
      return body.attempts[0].reconciliation?.status === 'refunded' ? body : null;
    }, 10_000);
    expect(Date.now() - released).to.be.below(5_000);
    expect(view.attempts[0].reconciliation).to.include({ amount: 9_900 });
    const after = await accounts.gateway.queryCharge({ credentials: await credentials(), idempotencyKey: timedOut.id });
    expect(after.paidAmount, 'the cardholder is charged once, on the dear account').to.equal(0);
    expect(view).to.include({ status: 'captured', connectorAccountId: dear, capturedAmount: 9_900, refundedAmount: 0 });
  });
});
