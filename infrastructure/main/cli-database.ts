/**
 * The database an operator command works on: DATABASE_URL, or in embedded mode the database the running
 * service serves from DATA_DIR. It never opens a second embedded database elsewhere: a CLI run with a DATA_DIR
 * no service uses, while a service runs with another, is refused with the command to run instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/config';
import type { Logger } from '../logging/logger';
import { embeddedDatabaseHolder } from '../persistence/embedded-database';
import type { EmbeddedDatabase } from '../persistence/embedded-database';
import type { Orm } from '../persistence/orm';
import { openDatabase } from './bootstrap';
import { cliCommandFor, runningServiceOf, runningServices, type RunningService } from './running-service';

/** A refusal the CLI prints as its one sentence (exit 1). */
export class CliRefusal extends Error {}

/** Why this DATA_DIR has no service, and what to run instead; `args` is the command line to repeat. */
export function noServiceRefusal(config: Config, args: string): CliRefusal {
  const elsewhere = runningServices().filter((service) => path.resolve(service.dataDir) !== path.resolve(config.dataDir));
  if (elsewhere.length > 0) {
    const describe = (service: RunningService) => `process ${service.pid} at ${service.url} uses DATA_DIR=${service.dataDir}`;
    return new CliRefusal(
      `No service is running with DATA_DIR=${config.dataDir}, but ${elsewhere.map(describe).join('; ')}. ` +
        `Run the command with that DATA_DIR: ${cliCommandFor(elsewhere[0]!.dataDir, args)}`,
    );
  }
  return new CliRefusal(
    `No service is running with DATA_DIR=${config.dataDir}. Start it first at the repository root (make run` +
      `${cliCommandFor(config.dataDir, '').startsWith('DATA_DIR=') ? `, with DATA_DIR=${config.dataDir}` : ''}), then run: ${cliCommandFor(config.dataDir, args)}`,
  );
}

export async function openCliDatabase(config: Config, logger: Logger, args: string): Promise<{ orm: Orm; embedded: EmbeddedDatabase | null }> {
  if (config.databaseUrl) return openDatabase(config, logger);
  // The running service's database, joined through its socket (PGlite admits one process per data directory).
  if (embeddedDatabaseHolder(config.dataDir) || runningServiceOf(config.dataDir)) return openDatabase(config, logger, true);
  // No service anywhere and this DATA_DIR already holds the database: the CLI may open it alone (still one database).
  const holdsDatabase = nonEmptyDirectory(path.join(config.dataDir, 'pgdata'));
  if (holdsDatabase && runningServices().length === 0) return openDatabase(config, logger);
  throw noServiceRefusal(config, args);
}

function nonEmptyDirectory(directory: string): boolean {
  try {
    return fs.readdirSync(directory).length > 0;
  } catch {
    return false;
  }
}
