import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from '../../support/eventually';

/**
 * Walks README's Quickstart as a new user would, on a fresh data directory: every ```sh block of the section,
 * in order and as written, against the embedded service started as its own process. Two departures, both
 * for a shared test machine: the service is started from source (`node --require tsx/cjs .../main.ts`, what
 * `make run` runs once built, without rebuilding dist/) on a free port, and the receivers' ports 3000 and 3001
 * are replaced by free ones.
 */
const ROOT = path.resolve(__dirname, '../../..');
const SLOW = 90_000;

interface Process {
  readonly child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function start(command: string, args: string[], env: Record<string, string | undefined>): Process {
  // A process group of its own, as a terminal's foreground job: Ctrl-C (SIGINT) reaches npm, tsx and node alike.
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function stop(process_: Process | undefined, signal: NodeJS.Signals = 'SIGINT'): Promise<number | null | undefined> {
  if (!process_) return undefined;
  if (process_.child.exitCode === null && process_.child.signalCode === null) {
    try {
      process.kill(-process_.child.pid!, signal);
    } catch {
      // the group is gone already
    }
  }
  process_.child.stdin?.end();
  return process_.exited;
}

/** A bash the test types into, as a user's terminal: variables set by one block stay for the next. */
class Terminal {
  private readonly shell = start('bash', ['--norc', '--noprofile'], {});
  private runs = 0;

  async run(block: string): Promise<{ status: number; output: string }> {
    const marker = `__block_${++this.runs}_done__`;
    const before = this.shell.output().length;
    this.shell.child.stdin!.write(`${block}\necho; echo "${marker}$?"\n`);
    const done = await eventually(() => new RegExp(`${marker}(\\d+)`).exec(this.shell.output().slice(before)), SLOW, 50);
    return { status: Number(done[1]), output: this.shell.output().slice(before, before + done.index) };
  }

  close(): Promise<number | null | undefined> {
    return stop(this.shell, 'SIGTERM');
  }
}

function quickstartBlocks(): string[] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start_ = readme.indexOf('## Quickstart');
  const section = readme.slice(start_, readme.indexOf('\n## ', start_ + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!.trim());
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Waits for a process to print `pattern`; a failure shows what it printed instead. */
async function printed(process_: Process, pattern: RegExp): Promise<RegExpExecArray> {
  try {
    return await eventually(() => pattern.exec(process_.output()), SLOW, 50);
  } catch {
    throw new Error(`expected ${pattern} in the output of ${process_.child.spawnargs.join(' ')}:\n${process_.output()}`);
  }
}

const lastJson = (output: string) => JSON.parse(output.trim().split('\n').filter((line) => line.startsWith('{')).pop()!);

describe("README's Quickstart, command by command, on a fresh data directory", function () {
  this.timeout(10 * SLOW);
  const dataDir = fs.mkdtempSync(path.join(tmpdir(), 'quickstart-'));
  let service: Process | undefined;
  let terminal: Terminal | undefined;
  const background: Process[] = [];

  before(async () => {
    // 1. The service, in embedded mode on a fresh DATA_DIR; its banner prints the next command.
    service = start(process.execPath, ['--require', 'tsx/cjs', 'infrastructure/main/main.ts'], { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' });
    // The receiver is plain JavaScript over the built verifier package (make build builds it).
    if (!fs.existsSync(path.join(ROOT, 'webhook-verifier/dist/cjs/index.js'))) {
      const build = start(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'webhook-verifier/tsconfig.json'], {});
      expect(await build.exited).to.equal(0);
    }
  });

  after(async () => {
    for (const process_ of background) await stop(process_);
    await terminal?.close();
    await stop(service, 'SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('takes a payment, a decline, a capture and a refund, and verifies webhooks, as the README says', async () => {
    const blocks = quickstartBlocks();
    expect(blocks[0]).to.equal('make run');
    expect(blocks[1]).to.equal('npm run cli -- quickstart');
    const [receiverPort, listenPort] = [await freePort(), await freePort()];
    const ports = (block: string) => block.replace(/localhost:3000/g, `localhost:${receiverPort}`).replace(/localhost:3001/g, `localhost:${listenPort}`).replace(/PORT=3001/g, `PORT=${listenPort}`);

    const banner = await printed(service!, /^ {2}(.*npm run cli -- quickstart)$/m);
    // The banner's command is README's with the DATA_DIR this service uses, and works pasted at the root.
    expect(banner[1]).to.equal(`DATA_DIR=${dataDir} ${blocks[1]}`);

    // 2. Quickstart, as printed: the two lines to paste.
    terminal = new Terminal();
    const setup = await terminal.run(banner[1]!);
    expect(setup.status, setup.output).to.equal(0);
    const exports = setup.output.split('\n').filter((line) => line.startsWith('export '));
    expect(exports.map((line) => line.split('=')[0])).to.deep.equal(['export SK', 'export API']);
    expect(exports[0]).to.match(/^export SK=sk_sandbox_/);
    await terminal.run(exports.join('\n'));
    const sk = exports[0]!.slice('export SK='.length);
    const api = exports[1]!.slice('export API='.length);

    // 3. A payment captured at once.
    const captured = await terminal.run(blocks[2]!);
    expect(lastJson(captured.output)).to.include({ object: 'payment', status: 'captured', amount: 1000, capturedAmount: 1000 });

    // 4. A decline.
    const declined = lastJson((await terminal.run(blocks[3]!)).output);
    expect(declined).to.include({ status: 'failed' });
    expect(declined.decline).to.include({ reason: 'INSUFFICIENT_FUNDS' });

    // 5. Manual capture, then a partial refund.
    const lines = (await terminal.run(blocks[4]!)).output.trim().split('\n').filter((line) => line.startsWith('{'));
    expect(JSON.parse(lines[0]!)).to.include({ status: 'captured', capturedAmount: 2500 });
    expect(JSON.parse(lines[1]!)).to.include({ refundedAmount: 1000, refundStatus: 'partial' });

    // 6. An endpoint, a receiver verifying with the verifier package, and a delivery.
    const registered = await terminal.run(ports(blocks[5]!));
    const secret = registered.output.trim();
    expect(secret).to.match(/^whsec_/);
    expect(blocks[6]).to.include('WEBHOOK_SECRET=whsec_...');
    const receiver = start('bash', ['-c', blocks[6]!.replace('whsec_...', secret)], { PORT: String(receiverPort) });
    background.push(receiver);
    await printed(receiver, /Receiving webhooks/);
    const paid = lastJson((await terminal.run(blocks[7]!)).output);
    expect(paid.status).to.equal('captured');
    await printed(receiver, /verified payment\.captured evt_/);
    expect(receiver.output()).to.not.include('refused');

    // 7. listen: forwards the environment's events, signed with the secret it prints, to a second receiver.
    const listener = start('bash', ['-c', ports(blocks[8]!)], { SK: sk, API: api });
    background.push(listener);
    const listenSecret = (await printed(listener, /Signing secret[^:]*: (whsec_\S+)/))[1]!;
    expect(blocks[9]).to.include('WEBHOOK_SECRET=whsec_...');
    const second = start('bash', ['-c', ports(blocks[9]!).replace('whsec_...', listenSecret)], {});
    background.push(second);
    await printed(second, new RegExp(`http://localhost:${listenPort}`));
    const again = lastJson((await terminal.run(blocks[10]!)).output);
    expect(again.status).to.equal('captured');
    await printed(second, /verified payment\.captured evt_/);
    await printed(listener, /payment\.captured\s+evt_\S+\s+-> 204/);
    expect(second.output()).to.not.include('refused');
    expect(blocks).to.have.length(11);

    // Ctrl-C (SIGINT to the job, npm included) stops listen cleanly: it finishes and says so.
    await stop(listener);
    await printed(listener, /^Stopped\.$/m);
  });

  it('refuses, naming the DATA_DIR to use, a CLI run with a DATA_DIR no service uses (never a second database)', async () => {
    await eventually(() => service && fs.existsSync(path.join(dataDir, 'service.json')), SLOW, 100);
    const other = fs.mkdtempSync(path.join(tmpdir(), 'quickstart-other-'));
    const cli = start('npm', ['run', '-s', 'cli', '--', 'org', 'create', '--name', 'Elsewhere'], { DATA_DIR: other });
    expect(await cli.exited).to.equal(1);
    const sentence = cli.output().trim();
    expect(sentence.split('\n')).to.have.length(1);
    expect(sentence).to.include(`No service is running with DATA_DIR=${other}`).and.include(`DATA_DIR=${dataDir}`);
    expect(fs.readdirSync(other), 'nothing created in the other DATA_DIR').to.deep.equal([]);
    fs.rmSync(other, { recursive: true, force: true });
  });
});
