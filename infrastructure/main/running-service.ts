/**
 * Where a service started in embedded mode says it runs, so the operators' CLI reaches the same database and
 * API instead of opening a second embedded database somewhere else (issue 27: "one database, always").
 *
 * Two records, both private to the OS user: `DATA_DIR/service.json` (the URL, for commands that call the API)
 * and one file per process in a 0700 folder of the system's temporary directory, so a CLI run with another
 * DATA_DIR can say which one the running service uses.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface RunningService {
  readonly pid: number;
  readonly dataDir: string;
  readonly url: string;
}

function registryDirectory(): string {
  const user = typeof process.getuid === 'function' ? String(process.getuid()) : os.userInfo().username;
  return path.join(os.tmpdir(), `payment-orchestration-${user}`);
}

function serviceFile(dataDir: string): string {
  return path.join(dataDir, 'service.json');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function read(file: string): RunningService | null {
  try {
    const record = JSON.parse(fs.readFileSync(file, 'utf8')) as RunningService;
    return Number.isInteger(record.pid) && typeof record.url === 'string' && typeof record.dataDir === 'string' && alive(record.pid) ? record : null;
  } catch {
    return null;
  }
}

/** Records this process as the service of `dataDir`; the returned function removes the records (on stop). */
export function announceRunningService(dataDir: string, url: string): () => void {
  const record: RunningService = { pid: process.pid, dataDir, url };
  const registry = registryDirectory();
  fs.mkdirSync(registry, { recursive: true, mode: 0o700 });
  const entry = path.join(registry, `${process.pid}.json`);
  fs.writeFileSync(entry, JSON.stringify(record), { mode: 0o600 });
  fs.writeFileSync(serviceFile(dataDir), JSON.stringify(record), { mode: 0o600 });
  return () => {
    fs.rmSync(entry, { force: true });
    if (read(serviceFile(dataDir))?.pid === process.pid || !fs.existsSync(serviceFile(dataDir))) fs.rmSync(serviceFile(dataDir), { force: true });
  };
}

/** The live service serving `dataDir`, if any. */
export function runningServiceOf(dataDir: string): RunningService | null {
  return read(serviceFile(dataDir));
}

/** Every live embedded service of this OS user (records of processes that died are skipped). */
export function runningServices(): RunningService[] {
  const registry = registryDirectory();
  let names: string[];
  try {
    names = fs.readdirSync(registry);
  } catch {
    return [];
  }
  return names.filter((name) => name.endsWith('.json')).map((name) => read(path.join(registry, name))).filter((r): r is RunningService => r !== null);
}

/** The folder `npm run cli` and `make run` run in: the one holding package.json above this file. */
export function repositoryRoot(): string {
  let directory = __dirname;
  while (!fs.existsSync(path.join(directory, 'package.json')) && path.dirname(directory) !== directory) directory = path.dirname(directory);
  return directory;
}

/** A value as one shell word (POSIX single quotes), for commands printed to paste. */
export function shellWord(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The CLI invocation that reaches the service of `dataDir` when pasted at the repository root: `DATA_DIR=...`
 * is printed unless it is the default (`.data` at the root, which is where `npm run cli` resolves it).
 */
export function cliCommandFor(dataDir: string, args: string): string {
  const isDefault = path.resolve(dataDir) === path.join(repositoryRoot(), '.data');
  return `${isDefault ? '' : `DATA_DIR=${shellWord(dataDir)} `}npm run cli -- ${args}`;
}
