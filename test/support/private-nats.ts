/**
 * A NATS JetStream server of the test's own (the Debian nats-server binary on a free loopback port, with
 * its own storage), so a test can really kill it and bring it back without disturbing anyone else.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { closeAfterRun } from './root-hooks';

const CANDIDATES = [process.env.NATS_SERVER_BIN, '/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

export function natsServerBinary(): string | null {
  return CANDIDATES.find((candidate): candidate is string => !!candidate && fs.existsSync(candidate)) ?? null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

function waitForPort(port: number, up: boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const probe = () => {
      const socket = net.connect({ host: '127.0.0.1', port });
      const retry = (isUp: boolean) => {
        socket.destroy();
        if (isUp === up) return resolve();
        if (Date.now() > deadline) return reject(new Error(`nats on ${port} did not become ${up ? 'reachable' : 'unreachable'}`));
        setTimeout(probe, 50);
      };
      socket.once('connect', () => retry(true));
      socket.once('error', () => retry(false));
    };
    probe();
  });
}

export class PrivateNats {
  private process: ChildProcess | null = null;

  private constructor(readonly binary: string, readonly port: number, readonly storeDir: string) {}

  static async start(): Promise<PrivateNats> {
    const binary = natsServerBinary();
    if (!binary) throw new Error('nats-server binary not found (install Debian package nats-server or set NATS_SERVER_BIN)');
    const nats = new PrivateNats(binary, await freePort(), fs.mkdtempSync(path.join(os.tmpdir(), 'nats-')));
    await nats.up();
    closeAfterRun(async () => {
      await nats.kill();
      fs.rmSync(nats.storeDir, { recursive: true, force: true });
    }, 'resources');
    return nats;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    if (this.process) return;
    this.process = spawn(this.binary, ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir], { stdio: 'ignore' });
    await waitForPort(this.port, true);
  }

  /** SIGKILL: no graceful shutdown, as in a crash. JetStream's file storage keeps what it acknowledged. */
  async kill(): Promise<void> {
    const child = this.process;
    if (!child) return;
    this.process = null;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await waitForPort(this.port, false);
  }
}
