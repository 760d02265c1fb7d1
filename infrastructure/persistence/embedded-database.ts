/**
 * Embedded mode: a PGlite database kept under the data directory, served on a loopback port through the
 * PostgreSQL wire protocol, so the production driver, MikroORM and the very same migrations run on it.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface EmbeddedDatabase {
  readonly url: string;
  stop(): Promise<void>;
}

/** Where a running embedded database announces its port, so the operators' CLI can reach it meanwhile. */
export function embeddedPortFile(dataDir: string): string {
  return path.join(dataDir, 'pglite.port');
}

/** The URL of an embedded database another process is serving from this data directory, if any. */
export function runningEmbeddedDatabaseUrl(dataDir: string): string | null {
  try {
    const port = Number(fs.readFileSync(embeddedPortFile(dataDir), 'utf8').trim());
    return Number.isInteger(port) && port > 0 ? `postgres://postgres@127.0.0.1:${port}/postgres` : null;
  } catch {
    return null;
  }
}

function lockFile(dataDir: string): string {
  return path.join(dataDir, 'pglite.lock');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live process that holds this data directory's embedded database, if any. */
export function embeddedDatabaseHolder(dataDir: string): number | null {
  try {
    const pid = Number(fs.readFileSync(lockFile(dataDir), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

export class EmbeddedDatabaseBusyError extends Error {
  constructor(readonly holderPid: number, lockPath: string) {
    super(`the embedded database is in use by process ${holderPid} (stop it first; if no such service runs, remove ${lockPath})`);
  }
}

/**
 * PGlite admits one process per data directory, and two would corrupt it: the lock file names the holder.
 * A lock left by a process that died is taken over.
 */
function acquireLock(dataDir: string): void {
  const file = lockFile(dataDir);
  for (let tries = 0; tries < 3; tries += 1) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = embeddedDatabaseHolder(dataDir);
      if (holder) throw new EmbeddedDatabaseBusyError(holder, file);
      fs.rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`could not take the embedded database lock ${file}`);
}

/** Waits for the holder's database to start serving (its port file appears), for processes that join it. */
export async function waitForRunningEmbeddedDatabase(dataDir: string, timeoutMs = 60_000): Promise<string | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const url = runningEmbeddedDatabaseUrl(dataDir);
    if (url) return url;
    if (!embeddedDatabaseHolder(dataDir) || Date.now() > deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function startEmbeddedDatabase(dataDir: string, maxConnections = 8): Promise<EmbeddedDatabase> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const directory = path.join(dataDir, 'pgdata');
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  acquireLock(dataDir);
  let db: Awaited<ReturnType<typeof PGlite.create>>;
  let server: InstanceType<typeof PGLiteSocketServer>;
  try {
    db = await PGlite.create(directory);
    server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
    await server.start();
  } catch (error) {
    fs.rmSync(lockFile(dataDir), { force: true });
    throw error;
  }
  const [, port] = server.getServerConn().split(':');
  fs.writeFileSync(embeddedPortFile(dataDir), port, { mode: 0o600 });
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      fs.rmSync(embeddedPortFile(dataDir), { force: true });
      await server.stop();
      await db.close();
      fs.rmSync(lockFile(dataDir), { force: true });
    },
  };
}
