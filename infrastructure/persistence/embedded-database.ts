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

export async function startEmbeddedDatabase(dataDir: string, maxConnections = 8): Promise<EmbeddedDatabase> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const directory = path.join(dataDir, 'pgdata');
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  const db = await PGlite.create(directory);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
  await server.start();
  const [, port] = server.getServerConn().split(':');
  fs.writeFileSync(embeddedPortFile(dataDir), port, { mode: 0o600 });
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      fs.rmSync(embeddedPortFile(dataDir), { force: true });
      await server.stop();
      await db.close();
    },
  };
}
