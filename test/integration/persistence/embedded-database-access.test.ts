import { expect } from 'chai';
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { EmbeddedDataDirectoryError, runningEmbeddedDatabaseUrl, startEmbeddedDatabase, type EmbeddedDatabase } from '../../../infrastructure/persistence/embedded-database';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';

/**
 * Issue 22, item 2: PGlite's socket server checks no user or password and shares one session among its
 * connections, so the embedded database must be reachable by the service and its CLI only (the OS user that
 * owns DATA_DIR), and never over TCP.
 */

/** The TCP ports this process listens on (Linux: its socket inodes matched against /proc/net/tcp{,6}). */
function listeningTcpPorts(): number[] {
  const inodes = new Set(
    fs
      .readdirSync('/proc/self/fd')
      .map((fd) => {
        try {
          return /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/self/fd/${fd}`))?.[1];
        } catch {
          return undefined; // closed meanwhile
        }
      })
      .filter((inode): inode is string => inode !== undefined),
  );
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      const [, localAddress, , state] = columns;
      if (state === '0A' && inodes.has(columns[9])) ports.push(parseInt(localAddress.split(':')[1], 16));
    }
  }
  return ports.sort();
}

function mode(file: string): number {
  return fs.statSync(file).mode & 0o777;
}

describe('embedded database access (only the service and its CLI reach it)', function () {
  this.timeout(120_000);
  let dataDir: string;
  let tcpPortsBefore: number[];
  let database: EmbeddedDatabase;
  let orm: Orm;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-access-'));
    fs.chmodSync(dataDir, 0o755); // as a DATA_DIR made with a plain mkdir would be
    tcpPortsBefore = listeningTcpPorts();
    database = await startEmbeddedDatabase(dataDir);
    orm = await openOrm(database.url, 2);
    await migrate(orm);
  });

  after(async () => {
    await orm?.close(true);
    await database?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('listens on no TCP port, so no user or password on loopback can reach it', () => {
    expect(listeningTcpPorts()).to.deep.equal(tcpPortsBefore);
    expect(fs.statSync(database.socketPath).isSocket()).to.equal(true);
    expect(database.socketPath.startsWith(path.join(dataDir, 'run') + path.sep)).to.equal(true);
  });

  it("serves the service's own client on its socket", async () => {
    const fork = orm.em.fork({ useContext: false });
    await fork.execute(`insert into organizations (id, name, created_at) values ('org_access', 'Access', now())`);
    const rows = await fork.execute(`select name from organizations where id = 'org_access'`);
    expect(rows).to.deep.equal([{ name: 'Access' }]);
  });

  it('lets the CLI join it, and the secrets it writes are private', async () => {
    const tsx = path.resolve('node_modules/.bin/tsx');
    const { stdout } = await promisify(execFile)(tsx, ['infrastructure/main/cli.ts', 'org', 'create', '--name', 'ACME', '--email', 'owner@example.com'], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', NATS_URL: '', LOG_LEVEL: 'silent' },
      timeout: 100_000,
    });
    const created = JSON.parse(stdout) as { id: string };
    const rows = await orm.em.fork({ useContext: false }).execute(`select name from organizations where id = ?`, [created.id]);
    expect(rows).to.deep.equal([{ name: 'ACME' }]);
    // The owner's creation made the installation's session secret (in the database) and the credentials key.
    expect(mode(path.join(dataDir, 'credentials.key'))).to.equal(0o600);
  });

  it('keeps the data directory, the socket and every secret file private to the OS user that runs the service', () => {
    expect(mode(dataDir)).to.equal(0o700);
    expect(mode(path.join(dataDir, 'pgdata'))).to.equal(0o700);
    expect(mode(path.join(dataDir, 'run'))).to.equal(0o700);
    expect(mode(database.socketPath)).to.equal(0o600);
    for (const file of ['pglite.socket', 'pglite.lock']) expect(mode(path.join(dataDir, file)), file).to.equal(0o600);
  });

  it('refuses another OS user both the socket and the key file (checked when the tests run as root)', function () {
    // Only root can act as another user; as anyone else the modes checked above are the proof.
    if (process.getuid?.() !== 0) return;
    const probe = `
      const fs = require('node:fs');
      const net = require('node:net');
      let read;
      try { fs.readFileSync(process.argv[2]); read = 'read'; } catch (error) { read = error.code; }
      const socket = net.connect(process.argv[1]);
      socket.on('connect', () => { console.log(JSON.stringify({ read, connect: 'connected' })); socket.destroy(); });
      socket.on('error', (error) => console.log(JSON.stringify({ read, connect: error.code })));
    `;
    const nobody = 65534;
    const result = spawnSync(process.execPath, ['-e', probe, database.socketPath, path.join(dataDir, 'credentials.key')], {
      uid: nobody,
      gid: nobody,
      cwd: '/',
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status, result.stderr).to.equal(0);
    expect(JSON.parse(result.stdout)).to.deep.equal({ read: 'EACCES', connect: 'EACCES' });
  });
});

describe('embedded database socket placement', function () {
  this.timeout(120_000);

  it('puts the socket in a private temporary folder when DATA_DIR is too long for a socket path, and removes it on stop', async () => {
    const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-long-')), 'd'.repeat(100));
    try {
      const database = await startEmbeddedDatabase(dataDir);
      const socketDirectory = path.dirname(database.socketPath);
      try {
        expect(socketDirectory.startsWith(os.tmpdir())).to.equal(true);
        expect(mode(socketDirectory)).to.equal(0o700);
        expect(mode(database.socketPath)).to.equal(0o600);
        expect(runningEmbeddedDatabaseUrl(dataDir)).to.equal(database.url);
        const orm = await openOrm(database.url, 1);
        expect(await orm.em.fork({ useContext: false }).execute('select 1 as one')).to.deep.equal([{ one: 1 }]);
        await orm.close(true);
      } finally {
        await database.stop();
      }
      expect(fs.existsSync(socketDirectory)).to.equal(false);
      expect(runningEmbeddedDatabaseUrl(dataDir)).to.equal(null);
    } finally {
      fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
    }
  });

  it('refuses a DATA_DIR that another OS user owns (checked when the tests run as root)', async () => {
    if (process.getuid?.() !== 0) return;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-owner-'));
    try {
      fs.chownSync(dataDir, 65534, 65534);
      await expect(startEmbeddedDatabase(dataDir)).to.be.rejectedWith(EmbeddedDataDirectoryError, 'belongs to another user');
      expect(fs.readdirSync(dataDir)).to.deep.equal([]);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
