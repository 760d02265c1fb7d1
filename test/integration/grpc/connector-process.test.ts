import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { GrpcAcquirerGateway } from '../../../infrastructure/grpc/grpc-acquirer.gateway';
import { GrpcAntifraudGateway } from '../../../infrastructure/grpc/grpc-antifraud.gateway';

const ROOT = path.resolve(__dirname, '../../..');

/** Starts `connector-process.ts <slug>` as its own OS process on a free port and resolves its address. */
function startAdapterProcess(slug: string, entry: string[] = ['infrastructure/main/connector-process.ts']): Promise<{ child: ChildProcess; address: string }> {
  return new Promise((resolve, reject) => {
    const [script, ...args] = entry;
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(ROOT, script!), ...args, slug], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`adapter ${slug} did not start: ${out}`)), 15_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.includes('connector adapter listening'));
      if (line) {
        clearTimeout(timer);
        const logged = JSON.parse(line) as { address?: string; host?: string; port?: number };
        resolve({ child, address: logged.address ?? `${logged.host}:${logged.port}` });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`adapter ${slug} exited with ${code}: ${out}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

describe('connector adapters as separate processes (distributed mode)', () => {
  const children: ChildProcess[] = [];
  after(async () => {
    await Promise.all(children.map(stop));
  });

  it('runs the sandbox acquirer and the sandbox antifraud alone, reachable over gRPC', async () => {
    const [acquirer, antifraud] = await Promise.all([startAdapterProcess('sandbox'), startAdapterProcess('sandbox-antifraud')]);
    children.push(acquirer.child, antifraud.child);
    const acquirerGateway = new GrpcAcquirerGateway(acquirer.address);
    const antifraudGateway = new GrpcAntifraudGateway(antifraud.address);
    try {
      expect((await acquirerGateway.describe()).slug).to.equal('sandbox');
      expect((await antifraudGateway.describe()).kind).to.equal('antifraud');
    } finally {
      acquirerGateway.close();
      antifraudGateway.close();
    }
  });

  it('runs through the service entry point too: main.js connector sandbox', async () => {
    const acquirer = await startAdapterProcess('sandbox', ['infrastructure/main/main.ts', 'connector']);
    children.push(acquirer.child);
    const gateway = new GrpcAcquirerGateway(acquirer.address);
    try {
      expect((await gateway.verifyCredentials({ credentials: { values: { merchantId: 'm', apiKey: 'invalid' }, config: {} } })).result).to.equal('invalid');
    } finally {
      gateway.close();
    }
  });
});
