/**
 * The run's real PostgreSQL and NATS JetStream. Addresses come from TEST_DATABASE_URL / TEST_NATS_URL
 * (default: the loopback servers); when those do not answer and a Docker engine exists, testcontainers
 * starts them. Each run isolates itself: its own databases (dropped at the end) and its own streams.
 */
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { closeAfterRun } from './root-hooks';

export const RUN_ID = `${randomBytes(3).toString('hex')}${process.pid}`;

let serversPromise: Promise<{ databaseUrl: string; natsUrl: string }> | null = null;

function reachable(url: string, fallbackPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || fallbackPort) });
    socket.setTimeout(1_000);
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
    socket.once('error', () => resolve(false));
  });
}

async function startContainers(needDatabase: boolean, needNats: boolean): Promise<{ databaseUrl?: string; natsUrl?: string }> {
  const result: { databaseUrl?: string; natsUrl?: string } = {};
  if (needDatabase) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:16-alpine').withDatabase('test').withUsername('postgres').withPassword('postgres').start();
    closeAfterRun(() => container.stop().then(() => undefined), 'resources');
    result.databaseUrl = container.getConnectionUri();
  }
  if (needNats) {
    const { GenericContainer } = await import('testcontainers');
    const container = await new GenericContainer('nats:2.10-alpine').withCommand(['-js']).withExposedPorts(4222).start();
    closeAfterRun(() => container.stop().then(() => undefined), 'resources');
    result.natsUrl = `nats://${container.getHost()}:${container.getMappedPort(4222)}`;
  }
  return result;
}

/** The run's server addresses (started once, lazily: unit-only runs never touch them). */
export function testServers(): Promise<{ databaseUrl: string; natsUrl: string }> {
  serversPromise ??= (async () => {
    const databaseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    const natsUrl = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
    const [databaseUp, natsUp] = await Promise.all([reachable(databaseUrl, 5432), reachable(natsUrl, 4222)]);
    if (databaseUp && natsUp) return { databaseUrl, natsUrl };
    const started = await startContainers(!databaseUp, !natsUp).catch((error) => {
      throw new Error(`PostgreSQL (${databaseUp ? 'up' : 'down'}) or NATS (${natsUp ? 'up' : 'down'}) is not reachable and no container engine could start them: ${(error as Error).message}`);
    });
    return { databaseUrl: started.databaseUrl ?? databaseUrl, natsUrl: started.natsUrl ?? natsUrl };
  })();
  return serversPromise;
}

let databaseCounter = 0;

/** A fresh, empty database of this run (dropped after the run). */
export async function createTestDatabase(): Promise<string> {
  const { databaseUrl } = await testServers();
  const name = `t_${RUN_ID}_${++databaseCounter}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  closeAfterRun(async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(`drop database if exists ${name} with (force)`);
    } finally {
      await client.end();
    }
  }, 'resources');
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

let streamCounter = 0;

/** A stream name and subject prefix no other run or test service shares. */
export function uniqueStream(): { stream: string; subjectPrefix: string } {
  streamCounter += 1;
  return { stream: `T_${RUN_ID}_${streamCounter}`, subjectPrefix: `t${RUN_ID}s${streamCounter}` };
}
