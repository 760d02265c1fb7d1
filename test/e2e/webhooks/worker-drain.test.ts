import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { eventually } from '../../support/eventually';
import { webhooksModule } from '../../../infrastructure/main/webhooks.module';
import { moduleList } from '../../../infrastructure/main/module';

const GRACE_MS = 15_000;
/** The receiver's answer time: deliveries are surely in flight when the worker gets SIGTERM. */
const ANSWER_DELAY_MS = 1_000;
const CREDENTIALS_KEY = randomBytes(32).toString('base64');

interface Worker {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
}

/** `main.ts worker` as a deployment runs it, on the test database and the service's private JetStream stream. */
function startWorker(service: TestService, dataDir: string): Promise<Worker> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: service.config.databaseUrl!,
    NATS_URL: service.config.natsUrl!,
    NATS_STREAM: service.config.natsStream,
    NATS_SUBJECT_PREFIX: service.config.natsSubjectPrefix,
    // Long: an event pulled by the stopped worker and not handed back would come again only after the test's limits.
    NATS_ACK_WAIT_MS: String(service.config.natsAckWaitMs),
    DEPLOYMENT: 'local',
    DATA_DIR: dataDir,
    CREDENTIALS_KEY,
    SESSION_SECRET: randomBytes(32).toString('base64'),
    // Generous: on a busy machine the receiver (in the test's process) may answer late, and a timed-out attempt is
    // not what this test is about.
    WEBHOOK_TIMEOUT_MS: '10000',
    SHUTDOWN_GRACE_MS: String(GRACE_MS),
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
  };
  delete env.CONNECTOR_ADAPTERS;
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', 'infrastructure/main/main.ts', 'worker'], { cwd: process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (data: Buffer) => (stderr += data.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (data: Buffer) => {
      stdout += data.toString();
      if (stdout.includes('"msg":"service started"')) resolve({ child, exited });
    });
    void exited.then((code) => reject(new Error(`the worker exited with ${code} before it started: ${stderr}`)));
  });
}

/** Deliveries of the merchant's events: status, attempts and lease, one row per (event, endpoint). */
function deliveryRows(service: TestService, organizationId: string) {
  return service.core.orm.em
    .fork({ useContext: false })
    .execute<Array<{ event_id: string; endpoint_id: string; status: string; attempts: number; lease_owner: string | null }>>(
      'select event_id, endpoint_id, status, attempts, lease_owner from webhook_deliveries where organization_id = ?',
      [organizationId],
    );
}

/**
 * contract.md 8, Shutdown, for a worker: SIGTERM mid-burst with deliveries in flight. The worker sends and records
 * what it leased, hands back what it pulled, exits 0 within the grace, and leaves no lease behind; the next worker
 * delivers the rest. A clean stop produces no duplicate (a SIGKILL may: worker-crash.test.ts).
 */
describe('SIGTERM drains a webhook worker', function () {
  this.timeout(120_000);
  let service: TestService;
  let receiver: WebhookReceiver;
  let merchant: Merchant;
  let dataDir: string;
  const workers: Worker[] = [];

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'worker-drain-test-'));
    receiver = await new WebhookReceiver().start();
    // The edge and the outbox relay only: deliveries are the worker processes' job.
    service = await startTestServiceWith(moduleList().with(webhooksModule()), {
      config: { deployment: 'local', credentialsKey: CREDENTIALS_KEY, natsAckWaitMs: 120_000, webhookTimeoutMs: 10_000 },
      workers: false,
    });
    merchant = await service.merchant();
  });
  after(async () => {
    for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await service?.stop();
    await receiver?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes the deliveries in flight, leaves no lease, and the next worker delivers the rest once', async () => {
    const paths = ['/a', '/b'];
    for (const p of paths) await merchant.sandbox.post('/v1/webhooks', { url: receiver.url(p), enabledEvents: ['payment.*'] });
    const workerA = await startWorker(service, dataDir);
    workers.push(workerA);

    // SIGTERM on the 6th request, sent by the receiver itself (a test process woken late cannot let the burst through
    // first): that request and those before it are still waiting for their answer.
    let sigtermAt = 0;
    let receivedAtSigterm = 0;
    receiver.answer = () => {
      if (receiver.requests.length === 6) {
        sigtermAt = Date.now();
        receivedAtSigterm = receiver.requests.length;
        workerA.child.kill('SIGTERM');
      }
      return { status: 200, body: 'ok', delayMs: ANSWER_DELAY_MS };
    };
    const scope = { organizationId: merchant.organizationId, environment: 'sandbox' as const };
    const append = (from: number, count: number) =>
      service.core.transactor.run((tx) =>
        service.core.outbox.append(
          tx,
          Array.from({ length: count }, (_, i) => ({ type: 'payment.captured', scope, object: { object: 'payment', id: `pay_drain_${from + i}`, status: 'captured' } })),
        ),
      );
    const burst = 20;
    const eventIds = (await append(0, burst / 2)).map((e) => e.id);
    await eventually(() => sigtermAt > 0, 60_000);
    // The second half is committed while the worker drains: it is handed back or left in the stream, never lost.
    eventIds.push(...(await append(burst / 2, burst / 2)).map((e) => e.id));

    const code = await workerA.exited;
    const drainMs = Date.now() - sigtermAt;
    expect(code, 'exit code').to.equal(0);
    expect(drainMs, 'exited within the grace').to.be.below(GRACE_MS);
    expect(receivedAtSigterm).to.equal(6);

    // Every request the stopped worker sent was answered and recorded; nothing is leased to it.
    const afterA = await deliveryRows(service, merchant.organizationId);
    expect(afterA.filter((row) => row.lease_owner !== null), 'deliveries left leased').to.deep.equal([]);
    const sentByA = receiver.requests.length;
    expect(afterA.filter((row) => row.status === 'succeeded').length, 'requests sent by the stopped worker, each recorded').to.equal(sentByA);
    expect(sentByA, 'the stopped worker left work for the next').to.be.below(burst * paths.length);

    const workerB = await startWorker(service, dataDir);
    workers.push(workerB);
    const expected = eventIds.flatMap((id) => paths.map((p) => `${p} ${id}`));
    await receiver.waitFor((requests) => {
      const seen = new Set(requests.map((r) => `${r.path} ${r.headers['service-event-id']}`));
      return expected.every((key) => seen.has(key));
    }, 60_000);
    const rows = await eventually(async () => {
      const current = await deliveryRows(service, merchant.organizationId);
      return current.length === expected.length && current.every((row) => row.status === 'succeeded' && row.lease_owner === null) && current;
    }, 30_000);

    // Exactly once: one row per (event, endpoint), one attempt each, and the receiver saw each event once per endpoint.
    expect(new Set(rows.map((row) => `${row.event_id} ${row.endpoint_id}`)).size).to.equal(expected.length);
    expect(rows.filter((row) => row.attempts !== 1), 'deliveries attempted more than once').to.deep.equal([]);
    const received = receiver.requests.map((r) => `${r.path} ${r.headers['service-event-id']}`);
    expect(received.filter((key, i) => received.indexOf(key) !== i), 'duplicate deliveries').to.deep.equal([]);
    expect(received).to.have.length(expected.length);

    workerB.child.kill('SIGTERM');
    expect(await workerB.exited).to.equal(0);
  });
});
