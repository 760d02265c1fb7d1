import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { startTestServiceWith, type TestService } from '../../support/test-service';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { webhooksModule } from '../../../infrastructure/main/webhooks.module';
import { verifyWebhook } from '../../../webhook-verifier/src';
import { natsServerBinary, PrivateNats } from '../../support/private-nats';
import { moduleList } from '../../../infrastructure/main/module';

/** Events the relay has not published yet (the second half of the burst, while NATS is down). */
async function unpublishedCount(service: TestService): Promise<{ n: number }> {
  const [row] = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ n: number }>>('select count(*)::int as n from events where published_at is null');
  return row!;
}

function startWorker(service: TestService, id: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', 'test/support/webhook-worker-process.ts'], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      DATABASE_URL: service.config.databaseUrl!,
      NATS_URL: service.config.natsUrl!,
      NATS_STREAM: service.config.natsStream,
      NATS_SUBJECT_PREFIX: service.config.natsSubjectPrefix,
      NATS_ACK_WAIT_MS: String(service.config.natsAckWaitMs),
      DEPLOYMENT: 'local',
      // Generous: on a busy machine the receiver (in the test's process) may answer late, and a timed-out attempt is
      // not what this test is about.
      WEBHOOK_TIMEOUT_MS: '10000',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1',
      LOG_LEVEL: 'silent',
      WORKER_ID: id,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker ${id} exited with ${code}: ${err}`)));
  });
}

/**
 * Every (event, endpoint) arrives signed with that endpoint's secret (at least once), and the database ends with
 * exactly one delivery per pair, each succeeded, whatever the redeliveries.
 */
async function expectEveryDeliveryOnce(input: {
  service: TestService;
  receiver: WebhookReceiver;
  secrets: Map<string, string>;
  organizationId: string;
  eventIds: readonly string[];
  paths: readonly string[];
  arrivalMs: number;
  settleMs: number;
}): Promise<void> {
  const { service, receiver, secrets } = input;
  const expected = new Set(input.eventIds.flatMap((id) => input.paths.map((p) => `${p} ${id}`)));
  await receiver.waitFor((rs) => {
    const seen = new Set(rs.map((r) => `${r.path} ${r.headers['service-event-id']}`));
    return [...expected].every((key) => seen.has(key));
  }, input.arrivalMs);
  for (const r of receiver.requests) {
    verifyWebhook({ rawBody: r.rawBody, signatureHeader: r.headers['service-signature'] as string, secret: secrets.get(r.path)! });
  }
  const deadline = Date.now() + input.settleMs;
  let rows: Array<{ status: string; n: number }> = [];
  for (;;) {
    rows = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ status: string; n: number }>>(
      `select status, count(*)::int as n from webhook_deliveries where organization_id = ? group by status`,
      [input.organizationId],
    );
    if ((rows.length === 1 && rows[0].status === 'succeeded') || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(rows.map((r) => ({ status: r.status, n: Number(r.n) }))).to.deep.equal([{ status: 'succeeded', n: expected.size }]);
}

/**
 * Both tests must pass on a busy machine (issue 27 item 8): waits poll with generous limits, and the kill that must
 * land mid-burst is made by the receiver itself, on the request that meets the condition, so a test process that
 * the scheduler wakes late cannot let the whole burst through first.
 */
describe('webhook worker killed mid-burst', function () {
  this.timeout(360_000);
  let service: TestService;
  let receiver: WebhookReceiver;
  const children: ChildProcess[] = [];

  before(async () => {
    receiver = await new WebhookReceiver().start();
    // The edge and the outbox relay only: deliveries are the child workers' job.
    service = await startTestServiceWith(moduleList().with(webhooksModule()), {
      config: { deployment: 'local', natsAckWaitMs: 2_000, webhookTimeoutMs: 10_000, webhookRetryScheduleSeconds: [1, 1, 1, 1, 1, 1] },
      workers: false,
    });
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await service?.stop();
    await receiver?.stop();
  });

  it('delivers every event of the burst after SIGKILL of the worker that was sending it', async () => {
    const merchant = await service.merchant();
    const endpoints = await Promise.all(
      ['/a', '/b'].map((path) => merchant.sandbox.post('/v1/webhooks', { url: receiver.url(path), enabledEvents: ['payment.*'] })),
    );
    const secrets = new Map(endpoints.map((e) => [new URL(e.body.url).pathname, e.body.secret as string]));
    const workerA = await startWorker(service, 'worker-a');
    children.push(workerA);
    // Worker A dies on the 6th request it sends, while it is sending (requests in flight, most of the burst queued).
    let receivedBeforeCrash = 0;
    receiver.answer = () => {
      if (receiver.requests.length === 6) {
        workerA.kill('SIGKILL');
        receivedBeforeCrash = receiver.requests.length;
      }
      return { status: 200, body: 'ok', delayMs: 400 };
    };
    const exitA = new Promise((resolve) => workerA.once('exit', resolve));
    const burst = 30;
    const events = await service.core.transactor.run((tx) =>
      service.core.outbox.append(
        tx,
        Array.from({ length: burst }, (_, i) => ({
          type: 'payment.captured',
          scope: { organizationId: merchant.organizationId, environment: 'sandbox' as const },
          object: { object: 'payment', id: `pay_burst_${i}`, status: 'captured' },
        })),
      ),
    );
    await receiver.waitFor((rs) => rs.length >= 6, 180_000);
    await exitA;
    expect(receivedBeforeCrash).to.equal(6);
    expect(receivedBeforeCrash).to.be.lessThan(burst * 2);

    const workerB = await startWorker(service, 'worker-b');
    children.push(workerB);
    await expectEveryDeliveryOnce({ service, receiver, secrets, organizationId: merchant.organizationId, eventIds: events.map((e) => e.id), paths: ['/a', '/b'], arrivalMs: 180_000, settleMs: 60_000 });
    const duplicates = receiver.requests.length - burst * 2;
    expect(duplicates).to.be.at.least(0);
  });
});

describe('webhook worker AND NATS killed mid-burst of 1,000 events', function () {
  this.timeout(480_000);
  let nats: PrivateNats;
  let service: TestService;
  let receiver: WebhookReceiver;
  const children: ChildProcess[] = [];

  before(async function () {
    if (!natsServerBinary()) throw new Error('nats-server binary not found: this test needs a NATS server of its own to kill');
    nats = await PrivateNats.start();
    receiver = await new WebhookReceiver().start();
    // Edge and outbox relay on the private NATS; deliveries are the child workers' job. A 2 s ack wait
    // (30 s in production) so the killed worker's unacknowledged events come back within the test.
    service = await startTestServiceWith(moduleList().with(webhooksModule()), {
      config: { deployment: 'local', natsUrl: nats.url, natsAckWaitMs: 2_000, webhookTimeoutMs: 10_000, webhookRetryScheduleSeconds: [1, 1, 1, 1, 1, 1] },
      workers: false,
    });
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await service?.stop();
    await receiver?.stop();
  });

  it('delivers every event to every endpoint at least once, exactly one delivery row each, none lost', async () => {
    const merchant = await service.merchant();
    const paths = ['/a', '/b'];
    const endpoints = await Promise.all(paths.map((path) => merchant.sandbox.post('/v1/webhooks', { url: receiver.url(path), enabledEvents: ['payment.*'] })));
    const secrets = new Map(endpoints.map((e) => [new URL(e.body.url).pathname, e.body.secret as string]));
    // Worker A is killed mid-burst; worker B lives through the NATS outage and must resume by itself.
    const workerA = await startWorker(service, 'worker-a');
    const workerB = await startWorker(service, 'worker-b');
    children.push(workerA, workerB);
    // Mid-burst, on the 100th request: deliveries are flowing, most of the burst is not delivered yet.
    let receivedAtKill = 0;
    receiver.answer = () => {
      if (receiver.requests.length === 100) {
        workerA.kill('SIGKILL');
        receivedAtKill = receiver.requests.length;
      }
      return { status: 200, body: 'ok', delayMs: 5 };
    };
    const exitA = new Promise((resolve) => workerA.once('exit', resolve));

    const scope = { organizationId: merchant.organizationId, environment: 'sandbox' as const };
    const burst = 1_000;
    const chunk = 100;
    const eventIds: string[] = [];
    const appendChunk = async (from: number) => {
      const stored = await service.core.transactor.run((tx) =>
        service.core.outbox.append(
          tx,
          Array.from({ length: chunk }, (_, i) => ({
            type: 'payment.captured',
            scope,
            object: { object: 'payment', id: `pay_burst_${from + i}`, status: 'captured' },
          })),
        ),
      );
      eventIds.push(...stored.map((e) => e.id));
    };
    for (let from = 0; from < burst / 2; from += chunk) await appendChunk(from);

    await receiver.waitFor((rs) => rs.length >= 100, 180_000);
    await Promise.all([exitA, nats.kill()]);
    // Killed while the first half of the burst was still being delivered.
    expect(receivedAtKill).to.be.lessThan((burst / 2) * paths.length);

    // The rest of the burst is committed while NATS is down: the relay cannot publish it yet.
    for (let from = burst / 2; from < burst; from += chunk) await appendChunk(from);
    expect(Number((await unpublishedCount(service)).n), 'committed while NATS is down, not published').to.be.at.least(burst / 2);
    // The outage lasts a moment longer so the relay tries, and fails, to publish them (a duration, not a wait for a result).
    await new Promise((resolve) => setTimeout(resolve, 500));
    await nats.up();

    expect(new Set(eventIds).size).to.equal(burst);
    await expectEveryDeliveryOnce({ service, receiver, secrets, organizationId: merchant.organizationId, eventIds, paths, arrivalMs: 300_000, settleMs: 60_000 });
    const [{ n: pairs }] = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ n: number }>>(
      `select count(distinct (event_id, endpoint_id))::int as n from webhook_deliveries where organization_id = ?`,
      [merchant.organizationId],
    );
    expect(Number(pairs)).to.equal(burst * paths.length);
  });
});
