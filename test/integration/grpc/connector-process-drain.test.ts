import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { expect } from 'chai';
import { AcquirerConnectorClient, AuthorizeRequest } from '../../../infrastructure/grpc/generated/connector/v1/connector';
import { createGrpcClient, deadlineIn } from '../../../infrastructure/grpc/grpc-client';
import { eventually } from '../../support/eventually';

const ROOT = path.resolve(__dirname, '../../..');
/** How long the adapter holds the slow call (its timeout scenario, shortened by the test-only starter). */
const SLOW_CALL_MS = 6_000;
const GRACE_MS = 15_000;
const CREDENTIALS = { secrets: { merchantId: 'm_drain', apiKey: 'sk_test' }, configJson: '{}' };

interface Adapter {
  readonly child: ChildProcess;
  readonly address: string;
  readonly logs: string[];
  readonly exited: Promise<number | null>;
}

/** The sandbox adapter as its own process through runConnectorProcess (what `main.js connector` runs). */
function startSlowAdapter(): Promise<Adapter> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(ROOT, 'test/support/slow-sandbox-adapter-process.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', METRICS_PORT: '0', SHUTDOWN_GRACE_MS: String(GRACE_MS), SLOW_CALL_MS: String(SLOW_CALL_MS) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let pending = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        logs.push(line);
        if (!line.includes('connector adapter listening')) continue;
        const logged = JSON.parse(line) as { host: string; port: number };
        resolve({ child, address: `${logged.host}:${logged.port}`, logs, exited });
      }
    });
    void exited.then((code) => reject(new Error(`the adapter exited with ${code} before listening: ${stderr}`)));
  });
}

interface CallOutcome {
  readonly code: number;
  readonly details: string;
  readonly at: number;
}

/** Authorize with a token of the sandbox's timeout scenario: held SLOW_CALL_MS, then answered UNAVAILABLE. */
function slowAuthorize(client: AcquirerConnectorClient): Promise<CallOutcome> {
  const request = AuthorizeRequest.fromPartial({
    credentials: CREDENTIALS,
    idempotencyKey: 'att_drain_1',
    paymentId: 'pay_drain_1',
    source: { $case: 'card', card: { token: 'tok_sandbox_timeout', brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030, holderName: 'ANA SILVA' } },
    amount: 1_000,
    currency: 'BRL',
  });
  return new Promise((resolve) => {
    client.authorize(request, new Metadata(), { deadline: deadlineIn(GRACE_MS + 10_000) }, (error) => {
      resolve({ code: error ? error.code : status.OK, details: error?.details ?? '', at: Date.now() });
    });
  });
}

/** A short call: the adapter's answer (OK) or the status that refused it. */
function verifyCredentials(client: AcquirerConnectorClient): Promise<CallOutcome> {
  return new Promise((resolve) => {
    client.verifyCredentials({ credentials: CREDENTIALS }, new Metadata(), { deadline: deadlineIn(5_000) }, (error: ServiceError | null) => {
      resolve({ code: error ? error.code : status.OK, details: error?.details ?? '', at: Date.now() });
    });
  });
}

/**
 * contract.md 8, Shutdown, for adapter processes: on SIGTERM a call in flight finishes with its own answer, new calls
 * are refused, and the process exits 0 within SHUTDOWN_GRACE_MS.
 */
describe('SIGTERM drains a connector adapter process', function () {
  this.timeout(60_000);
  let adapter: Adapter | null = null;
  const clients: AcquirerConnectorClient[] = [];

  after(() => {
    for (const client of clients) client.close();
    if (adapter && adapter.child.exitCode === null) adapter.child.kill('SIGKILL');
  });

  it('answers the call in flight, refuses new calls and exits 0', async () => {
    adapter = await startSlowAdapter();
    const client = createGrpcClient(AcquirerConnectorClient, adapter.address);
    clients.push(client);
    expect((await verifyCredentials(client)).code, 'the adapter answers before SIGTERM').to.equal(status.OK);

    const sentAt = Date.now();
    const slow = slowAuthorize(client);
    // Streams of one connection reach the server in order: once this later call is answered, the slow one is held by
    // the adapter, not still on its way.
    expect((await verifyCredentials(client)).code).to.equal(status.OK);

    const sigtermAt = Date.now();
    adapter.child.kill('SIGTERM');
    await eventually(() => adapter!.logs.some((line) => line.includes('shutting down: draining')), 10_000);

    // New calls are refused, on the connection the slow call holds open and on a new one alike.
    const onOpenConnection = await verifyCredentials(client);
    const fresh = createGrpcClient(AcquirerConnectorClient, adapter.address);
    clients.push(fresh);
    const onNewConnection = await verifyCredentials(fresh);
    expect(onOpenConnection.code, onOpenConnection.details).to.equal(status.UNAVAILABLE);
    expect(onNewConnection.code, onNewConnection.details).to.equal(status.UNAVAILABLE);

    // The slow call ends with the adapter's own answer after the time it takes, not cut nor answered early by the drain.
    const answer = await slow;
    expect(answer.details).to.equal('Sandbox timeout scenario: the acquirer did not answer in time');
    expect(answer.code).to.equal(status.UNAVAILABLE);
    expect(answer.at - sentAt, 'held for the whole scenario').to.be.at.least(SLOW_CALL_MS);
    expect(onOpenConnection.at, 'refused while the slow call was still in flight').to.be.below(answer.at);

    const code = await adapter.exited;
    expect(code, 'exit code').to.equal(0);
    expect(Date.now() - sigtermAt, 'exited within the grace').to.be.below(GRACE_MS);
  });
});
