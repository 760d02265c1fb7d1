import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import { eventually } from '../../support/eventually';

interface LogLine {
  msg: string;
  level: string;
  method?: string;
  path?: string;
  status?: number;
  url?: string;
}

interface Outcome {
  readonly sentAfterSigterm: boolean;
  readonly status?: number;
  readonly body?: string;
  readonly error?: string;
}

const DEADLINE_MS = 3_000;

/**
 * The installation's secrets, shared by every process of it as in a deployment (the owner below writes the installation
 * secrets, sealed with CREDENTIALS_KEY, that the service process reads).
 */
const SHARED_SECRETS = { CREDENTIALS_KEY: randomBytes(32).toString('base64'), SESSION_SECRET: randomBytes(32).toString('base64') };

/** `node main.ts all` on the test database, as a deployment runs it; resolves once it serves HTTP. */
function startServiceProcess(databaseUrl: string, dataDir: string, logs: LogLine[]): Promise<{ child: ChildProcess; url: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    DEPLOYMENT: 'local',
    DATA_DIR: dataDir,
    CREDENTIALS_KEY: SHARED_SECRETS.CREDENTIALS_KEY,
    SESSION_SECRET: SHARED_SECRETS.SESSION_SECRET,
    CONNECTOR_DEADLINE_MS: String(DEADLINE_MS),
    SHUTDOWN_GRACE_MS: '15000',
  };
  delete env.NATS_URL;
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', 'infrastructure/main/main.ts', 'all'], { cwd: process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'] });
  let pending = '';
  let stderr = '';
  child.stderr!.on('data', (data: Buffer) => (stderr += data.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (data: Buffer) => {
      pending += data.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const text of lines) {
        if (!text.startsWith('{')) continue;
        const line = JSON.parse(text) as LogLine;
        logs.push(line);
        if (line.msg === 'service started' && line.url) resolve({ child, url: line.url });
      }
    });
    child.once('exit', (code) => reject(new Error(`the service exited with ${code} before serving: ${stderr}`)));
  });
}

/** One request; a complete answer (status and whole body) or the connection error that ended it. */
function send(url: string, options: { method: string; path: string; key?: string; body?: unknown; agent?: http.Agent | false }): Promise<{ status?: number; body?: string; error?: string }> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve) => {
    const request = http.request(`${url}${options.path}`, {
      method: options.method,
      agent: options.agent ?? false,
      headers: {
        ...(options.key ? { Authorization: `Bearer ${options.key}` } : {}),
        ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}),
      },
    });
    request.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode, body }));
      response.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    request.end(payload);
  });
}

/**
 * contract.md 8, Shutdown: on SIGTERM under load, requests in flight finish with complete answers, readiness is 503,
 * new work is refused (503, or the connection refused), nothing accepted is cut, and the process exits 0.
 */
describe('SIGTERM drains the edge', function () {
  this.timeout(120_000);
  let owner: TestService;
  let merchant: Merchant;
  let dataDir: string;
  let child: ChildProcess | null = null;

  before(async () => {
    // The test database and a merchant's API key; the service under test is a process of its own on that database.
    owner = await startTestService({ transport: 'in-process', edge: false, workers: false, adapters: [], env: SHARED_SECRETS });
    merchant = await owner.merchant('Rolling deploy');
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'shutdown-test-'));
  });

  after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await owner?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes what it holds, refuses what comes after, and exits 0', async () => {
    const logs: LogLine[] = [];
    const started = await startServiceProcess(owner.config.databaseUrl!, dataDir, logs);
    child = started.child;
    const { url } = started;
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    const key = merchant.sandboxKey;
    const account = await send(url, { method: 'POST', path: '/v1/connector-accounts', key, body: { connectorSlug: 'sandbox', name: 'primary', credentials: { merchantId: 'm_drain', apiKey: 'sk_test' } } });
    expect(account.status, account.body).to.equal(201);

    // Requests that take the connector deadline (the sandbox's timeout scenario): surely in flight at SIGTERM.
    const slowCard = { token: 'tok_sandbox_timeout', brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030, holderName: 'ANA SILVA' };
    const slow = [1, 2, 3].map((n) => send(url, { method: 'POST', path: '/v1/payments', key, body: { amount: 1_000 + n, card: slowCard } }));

    // A steady load of short requests, each client on a keep-alive connection of its own.
    let sigtermSent = false;
    let stop = false;
    const outcomes: Outcome[] = [];
    const loops = [1, 2, 3].map(async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      while (!stop) {
        const sentAfterSigterm = sigtermSent;
        const result = await send(url, { method: 'GET', path: '/v1/payments?limit=1', key, agent });
        outcomes.push({ sentAfterSigterm, ...result });
        // Pace the clients once the service no longer answers, rather than spinning on refused connections.
        if (result.status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      agent.destroy();
    });

    // A readiness probe whose request is half sent on an open connection: it completes during the drain.
    const probe = net.connect(Number(new URL(url).port), '127.0.0.1');
    await new Promise((resolve) => probe.once('connect', resolve));
    probe.write('GET /health/ready HTTP/1.1\r\nHost: service\r\n');
    let probeAnswer = '';
    probe.on('data', (data: Buffer) => (probeAnswer += data.toString()));
    const probeClosed = new Promise((resolve) => probe.once('close', resolve));

    // SIGTERM once the slow payments are being processed (tx1 committed) and the load is running.
    await eventually(async () => {
      const rows = await owner.core.orm.em.fork({ useContext: false }).execute<Array<{ n: number }>>(
        'select count(*)::int as n from payments where organization_id = ?',
        [merchant.organizationId],
      );
      return Number(rows[0]?.n) === 3 && outcomes.filter((o) => o.status === 200).length >= 5;
    }, 30_000);
    sigtermSent = true;
    child.kill('SIGTERM');
    await eventually(() => logs.some((line) => line.msg === 'shutting down: draining'), 10_000);
    probe.write('\r\n');

    const slowAnswers = await Promise.all(slow);
    const code = await exited;
    stop = true;
    await Promise.all(loops);
    await probeClosed;

    expect(code, 'exit code').to.equal(0);
    for (const answer of slowAnswers) {
      expect(answer.status, JSON.stringify(answer)).to.equal(201);
      expect(JSON.parse(answer.body!).id).to.match(/^pay_/);
    }
    expect(probeAnswer).to.match(/^HTTP\/1\.1 503 /);
    expect(probeAnswer.toLowerCase()).to.contain('connection: close');
    expect(probeAnswer).to.contain('"code":"service_unavailable"');

    // Every answer is complete: 200, or refused as a whole (503 service_unavailable, or no connection at all).
    for (const outcome of outcomes) {
      if (outcome.status === 200) continue;
      if (outcome.status === 503) {
        expect(JSON.parse(outcome.body!).error.code).to.equal('service_unavailable');
        continue;
      }
      expect(outcome.sentAfterSigterm, `an error before SIGTERM: ${JSON.stringify(outcome)}`).to.equal(true);
      expect(outcome.error, JSON.stringify(outcome)).to.be.oneOf(['ECONNREFUSED', 'ECONNRESET', 'socket hang up']);
    }
    expect(outcomes.filter((o) => o.sentAfterSigterm && o.status !== 200), 'the load went on during the drain').not.to.be.empty;
    // None cut: each request the service accepted (and logged) was answered in full to its client. A connection reset
    // may only be a request the service never read (a keep-alive connection closed idle, or never accepted).
    const served = logs.filter((line) => line.msg === 'request' && line.path === '/v1/payments' && line.method === 'GET').length;
    expect(outcomes.filter((o) => o.status === 200).length, 'requests the service answered = complete answers received').to.equal(served);
  });
});
