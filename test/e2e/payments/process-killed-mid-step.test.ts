import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import { eventually } from '../../support/eventually';

const ROOT = path.resolve(__dirname, '../../..');
const DEADLINE_MS = 1_500;
const GRACE_MS = 3_000;

/** Resolves with the first JSON log line of `child` that `match` accepts. */
function logLine(child: ChildProcess, match: (line: Record<string, unknown>) => boolean, what: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let pending = '';
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not happen: ${seen.slice(-2_000)}`)), 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const text of lines) {
        seen += `${text}\n`;
        if (!text.startsWith('{')) continue;
        const line = JSON.parse(text) as Record<string, unknown>;
        if (match(line)) {
          clearTimeout(timer);
          resolve(line);
        }
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${what}: the process exited with ${code}: ${seen.slice(-2_000)}`)));
  });
}

/** The sandbox acquirer as an OS process of its own: it outlives the core processes and can be frozen. */
async function startAdapter(): Promise<{ child: ChildProcess; address: string }> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(ROOT, 'infrastructure/main/connector-process.ts'), 'sandbox'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const line = await logLine(child, (l) => l.msg === 'connector adapter listening', 'the adapter start');
  return { child, address: String(line.address) };
}

/** A core process (`main.ts all`) on the test database, reaching the adapter process; resolves once it serves HTTP. */
async function startCore(databaseUrl: string, adapter: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...env,
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    DEPLOYMENT: 'local',
    CONNECTOR_ADAPTERS: `sandbox=${adapter}`,
    CONNECTOR_DEADLINE_MS: String(DEADLINE_MS),
    PAYMENT_RECOVERY_GRACE_MS: String(GRACE_MS),
  };
  delete childEnv.NATS_URL;
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(ROOT, 'infrastructure/main/main.ts'), 'all'], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const line = await logLine(child, (l) => l.msg === 'service started' && typeof l.url === 'string', 'the core start');
  return { child, url: String(line.url) };
}

async function post(url: string, key: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

/**
 * Issue 23: a process killed in the middle of a step (SIGKILL while its acquirer call is in flight, after tx1 saved
 * the run and the call's attempt id) leaves a run that the next process completes once: the recovery worker resumes
 * the saved run and re-sends the saved attempt id, so the acquirer charges once and the payment is captured once.
 */
describe('a core process killed mid-step (SIGKILL during the acquirer call)', function () {
  this.timeout(120_000);
  let owner: TestService;
  let merchant: Merchant;
  let adapter: { child: ChildProcess; address: string };
  const cores: ChildProcess[] = [];
  const dataDirs: string[] = [];
  const secrets = { CREDENTIALS_KEY: randomBytes(32).toString('base64'), SESSION_SECRET: randomBytes(32).toString('base64') };
  const envFor = () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'killed-mid-step-'));
    dataDirs.push(dataDir);
    return { ...secrets, DATA_DIR: dataDir };
  };
  const rows = <T>(sql: string, params: unknown[]) => owner.core.orm.em.fork({ useContext: false }).execute<T[]>(sql, params);

  before(async () => {
    // Every process of the installation shares its secrets, as in a deployment: the owner writes the installation
    // secrets (sealed with CREDENTIALS_KEY) that the core processes read.
    owner = await startTestService({ transport: 'in-process', edge: false, workers: false, adapters: [], env: secrets });
    merchant = await owner.merchant('Killed mid-step');
    adapter = await startAdapter();
  });
  after(async () => {
    for (const child of cores) if (child.exitCode === null) child.kill('SIGKILL');
    if (adapter?.child.exitCode === null) {
      adapter.child.kill('SIGCONT');
      adapter.child.kill('SIGTERM');
    }
    await owner?.stop();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  it('the next process resumes the saved run with the saved attempt id: one charge, captured once', async () => {
    const first = await startCore(owner.config.databaseUrl!, adapter.address, envFor());
    cores.push(first.child);
    const account = await post(`${first.url}/v1/connector-accounts`, merchant.sandboxKey, { connectorSlug: 'sandbox', name: 'only', credentials: { merchantId: 'm_killed', apiKey: 'k1' } });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);

    // The adapter frozen: the core's call is surely in flight (tx1 committed, the answer not yet back) when it dies.
    adapter.child.kill('SIGSTOP');
    const answer = post(`${first.url}/v1/payments`, merchant.sandboxKey, { amount: 7_300, card: { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111' } }).catch((error: Error) => ({ status: 0, body: error.message }));
    const saved = await eventually(async () => {
      const found = await rows<{ payment_id: string; intents: unknown }>(
        `select r.payment_id, r.intents from payment_routings r join payments p on p.id = r.payment_id where p.organization_id = ?`,
        [merchant.organizationId],
      );
      return found[0] ?? null;
    }, 30_000);
    first.child.kill('SIGKILL');
    expect((await answer).status, 'the request died with its process').to.equal(0);
    adapter.child.kill('SIGCONT');

    const intents = (typeof saved.intents === 'string' ? JSON.parse(saved.intents) : saved.intents) as Array<{ attemptId: string }>;
    expect(intents).to.have.length(1);
    const paymentId = saved.payment_id;
    const [stuck] = await rows<{ status: string }>('select status from payments where id = ?', [paymentId]);
    expect(stuck!.status).to.equal('processing');

    const second = await startCore(owner.config.databaseUrl!, adapter.address, envFor());
    cores.push(second.child);
    await eventually(async () => (await rows<{ status: string }>('select status from payments where id = ?', [paymentId]))[0]!.status === 'captured', 45_000, 200);

    const [doc] = await rows<{ doc: any }>('select doc from payments where id = ?', [paymentId]);
    const payment = typeof doc!.doc === 'string' ? JSON.parse(doc!.doc) : doc!.doc;
    expect(payment.attempts.map((a: { id: string; outcome: string }) => [a.id, a.outcome])).to.deep.equal([[intents[0]!.attemptId, 'approved']]);
    expect(payment.flowRun.status).to.equal('ended');
    expect(payment.flowRun.steps.map((s: { nodeId: string; exit: string | null }) => s.exit)).to.deep.equal(['next', 'approved', null]);
    const events = await rows<{ type: string }>('select type from events where object_id = ?', [paymentId]);
    expect(events.map((e) => e.type)).to.deep.equal(['payment.captured']);
    expect(await rows('select 1 from payment_routings where payment_id = ?', [paymentId]), 'the routing is settled').to.have.length(0);
    expect(await rows('select 1 from payment_reconciliations where payment_id = ?', [paymentId]), 'nothing left to reconcile').to.have.length(0);
  });
});
