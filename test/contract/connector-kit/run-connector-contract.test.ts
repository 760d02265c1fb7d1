import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

/** Starts a TypeScript entry point as its own process and resolves the address it says it listens on. */
function startAdapterProcess(entry: string, args: string[], listening: (line: string) => string | undefined): Promise<{ child: ChildProcess; address: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(ROOT, entry), ...args], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${entry} did not start: ${out}`)), 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const address = out.split('\n').map(listening).find(Boolean);
      if (address) {
        clearTimeout(timer);
        resolve({ child, address });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code}: ${out}`));
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Runs the command a partner runs (npm run connector-contract) and returns its exit code and output. */
function runContract(address: string, fixture: string, extra: string[] = []): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', 'connector-contract', '--', '--address', address, '--fixture', fixture, ...extra], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('close', (code) => resolve({ code, output }));
  });
}

const sandboxListening = (line: string) => (line.includes('connector adapter listening') ? (JSON.parse(line) as { address: string }).address : undefined);
const templateListening = (line: string) => /listening on (\S+)/.exec(line)?.[1];

describe('npm run connector-contract: the connector kit runner against adapters running as their own processes', function () {
  this.timeout(180_000);
  const children: ChildProcess[] = [];
  after(async () => {
    await Promise.all(children.map(stop));
  });

  it('passes the sandbox adapter (connector-process.ts sandbox) with connector-kit/fixtures/sandbox.json', async () => {
    const adapter = await startAdapterProcess('infrastructure/main/connector-process.ts', ['sandbox'], sandboxListening);
    children.push(adapter.child);
    const { code, output } = await runContract(adapter.address, 'connector-kit/fixtures/sandbox.json');
    expect(output).to.match(/QueryCharge\s+passed/).and.match(/CreateBoleto\s+passed/).and.include('Result: PASSED');
    expect(code, output).to.equal(0);
  });

  it('passes the template adapter (connector-template) with its own fixture', async () => {
    const adapter = await startAdapterProcess('connector-template/src/main.ts', [], templateListening);
    children.push(adapter.child);
    const { code, output } = await runContract(adapter.address, 'connector-template/fixture.json');
    expect(output).to.include('Result: PASSED');
    expect(code, output).to.equal(0);
  });

  it('fails an adapter that lacks QueryCharge, exiting non-zero and naming QueryCharge', async () => {
    const adapter = await startAdapterProcess('test/contract/connector-kit/template-without-query-charge.ts', [], templateListening);
    children.push(adapter.child);
    const { code, output } = await runContract(adapter.address, 'connector-template/fixture.json');
    expect(code, output).to.equal(1);
    expect(output).to.match(/QueryCharge\s+FAILED/).and.include('UNIMPLEMENTED').and.include('Result: FAILED');
  });

  it('refuses to start (exit 2) with a sentence when nothing listens at the address', async () => {
    const { code, output } = await runContract('127.0.0.1:1', 'connector-kit/fixtures/sandbox.json', ['--connect-timeout', '500']);
    expect(code).to.equal(2);
    expect(output).to.include('Nothing answers gRPC at 127.0.0.1:1');
  });
});
