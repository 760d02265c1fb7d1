/**
 * Embedded mode: a PGlite database kept under the data directory, served through the PostgreSQL wire protocol
 * so the production driver, MikroORM and the very same migrations run on it.
 *
 * PGlite's socket server checks no user or password, and every connection shares PGlite's one session (a
 * client's `SET search_path` or `SET ROLE` would change it for the service). So it is served on a Unix socket
 * only, never on TCP: the socket (0600) lies in a 0700 folder of the 0700 data directory, and only the OS user
 * that owns the data directory (the service and its CLI) can reach it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface EmbeddedDatabase {
  readonly url: string;
  /** The Unix socket the database is served on. */
  readonly socketPath: string;
  stop(): Promise<void>;
}

/** The port only names the socket file (`.s.PGSQL.<port>`, the name libpq and `pg` look for in a socket folder). */
const SOCKET_PORT = 5432;
/** A Unix socket path is at most 103 bytes on macOS (104 with its terminating NUL), 107 on Linux. */
const MAX_SOCKET_PATH_BYTES = 103;

function socketFileIn(directory: string): string {
  return path.join(directory, `.s.PGSQL.${SOCKET_PORT}`);
}

/** A connection string for the socket in `directory`: a percent-encoded path as host, as libpq reads it. */
function socketUrl(directory: string): string {
  return `postgres://postgres@${encodeURIComponent(directory)}:${SOCKET_PORT}/postgres`;
}

/** Where a running embedded database announces its socket's folder, so the operators' CLI can reach it meanwhile. */
export function embeddedSocketAnnouncement(dataDir: string): string {
  return path.join(dataDir, 'pglite.socket');
}

/** The URL of an embedded database another process is serving from this data directory, if any. */
export function runningEmbeddedDatabaseUrl(dataDir: string): string | null {
  try {
    const directory = fs.readFileSync(embeddedSocketAnnouncement(dataDir), 'utf8').trim();
    return path.isAbsolute(directory) && fs.existsSync(socketFileIn(directory)) ? socketUrl(directory) : null;
  } catch {
    return null;
  }
}

export class EmbeddedDataDirectoryError extends Error {}

/**
 * Makes `directory` private to this OS user (0700), creating it if absent. A folder that another user owns
 * is refused rather than tightened: that user could still replace what it holds.
 */
function makePrivateDirectory(directory: string): void {
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  const stat = fs.statSync(directory);
  if (!stat.isDirectory()) throw new EmbeddedDataDirectoryError(`${directory} is not a directory`);
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) {
    throw new EmbeddedDataDirectoryError(`${directory} belongs to another user (uid ${stat.uid}); DATA_DIR must belong to the user that runs the service`);
  }
  if ((stat.mode & 0o777) !== 0o700) fs.chmodSync(directory, 0o700);
}

/**
 * The socket's private folder: `run/` in the data directory, or a fresh 0700 folder in the system's temporary
 * directory when the data directory's path is too long for a socket path.
 */
function privateSocketDirectory(dataDir: string): { directory: string; temporary: boolean } {
  const inside = path.join(dataDir, 'run');
  if (Buffer.byteLength(socketFileIn(inside)) <= MAX_SOCKET_PATH_BYTES) {
    makePrivateDirectory(inside);
    return { directory: inside, temporary: false };
  }
  return { directory: fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-')), temporary: true };
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

/** Waits for the holder's database to start serving (its socket is announced), for processes that join it. */
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
  makePrivateDirectory(dataDir);
  const directory = path.join(dataDir, 'pgdata');
  makePrivateDirectory(directory);
  acquireLock(dataDir);
  let db: Awaited<ReturnType<typeof PGlite.create>> | undefined;
  let server: InstanceType<typeof PGLiteSocketServer> | undefined;
  let socket: { directory: string; temporary: boolean } | undefined;
  try {
    socket = privateSocketDirectory(dataDir);
    const socketPath = socketFileIn(socket.directory);
    fs.rmSync(socketPath, { force: true }); // left by a process that died: we hold the lock, so it serves no one
    db = await PGlite.create(directory);
    server = new PGLiteSocketServer({ db, path: socketPath, maxConnections });
    await server.start();
    fs.chmodSync(socketPath, 0o600);
  } catch (error) {
    await server?.stop().catch(() => undefined);
    await db?.close().catch(() => undefined);
    if (socket?.temporary) fs.rmSync(socket.directory, { recursive: true, force: true });
    fs.rmSync(lockFile(dataDir), { force: true });
    throw error;
  }
  const [database, listening] = [db, server];
  const { directory: socketDirectory, temporary } = socket;
  fs.writeFileSync(embeddedSocketAnnouncement(dataDir), socketDirectory, { mode: 0o600 });
  return {
    url: socketUrl(socketDirectory),
    socketPath: socketFileIn(socketDirectory),
    async stop() {
      fs.rmSync(embeddedSocketAnnouncement(dataDir), { force: true });
      await listening.stop();
      await database.close();
      if (temporary) fs.rmSync(socketDirectory, { recursive: true, force: true });
      fs.rmSync(lockFile(dataDir), { force: true });
    },
  };
}
