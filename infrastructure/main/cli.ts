/**
 * Operators' command line (contract.md section 1):
 *   npm run cli -- org create --name ACME --email owner@example.com
 *   npm run cli -- api-key create --org ORG_ID --environment sandbox|live [--name NAME] [--scopes a,b]
 * Works against DATABASE_URL, or the embedded database under ./.data when it is absent.
 */
import { loadConfig } from '../config/config';
import { createLogger } from '../logging/logger';
import { migrate } from '../persistence/orm';
import { SystemClock } from '../clock/system-clock';
import { UlidIdGenerator } from '../clock/ulid-id-generator';
import { InProcessTransport } from '../messaging/in-process-transport';
import { openDatabase } from './bootstrap';
import { createCore, type Core } from './core';
import { credentialsCipher } from './credentials-cipher';
import { createOwnerFromCli } from './identity.module';
import { resealConnectorCredentials } from './connectors.module';

export type CliCommand = (core: Core, flags: Record<string, string>) => Promise<string>;

/** Extra commands registered by modules (e.g. the identity module's owner creation). */
export const CLI_COMMANDS: Record<string, CliCommand> = {
  'org create': async (core, flags) => {
    if (!flags.name) throw new Error('--name is required');
import { BILLING_CLI_COMMANDS } from './cli-billing';
    const organization = await core.organizations.create.execute({ name: flags.name });
    const owner = CLI_HOOKS.afterOrganizationCreated ? await CLI_HOOKS.afterOrganizationCreated(core, organization.id, flags) : '';
    return JSON.stringify({ object: 'organization', id: organization.id, name: organization.name, ...(owner ? { owner } : {}) }, null, 2);
  },
  'api-key create': async (core, flags) => {
    if (!flags.org) throw new Error('--org is required');
    const environment = flags.environment ?? 'sandbox';
    if (environment !== 'sandbox' && environment !== 'live') throw new Error('--environment must be sandbox or live');
    const { key, secret } = await core.apiKeys.create.execute({
      organizationId: flags.org,
      environment,
      name: flags.name ?? `${environment} key`,
      scopes: flags.scopes ? flags.scopes.split(',').map((scope) => scope.trim()) : undefined,
    });
    return JSON.stringify({ object: 'api_key', id: key.id, environment: key.environment, scopes: key.scopes, secret, note: 'Shown once; store it now.' }, null, 2);
  },
  'credentials reseal': (core) => resealConnectorCredentials(core),
};

/** Modules may add to organization creation (e.g. create the owner user from --email). */
export const CLI_HOOKS: { afterOrganizationCreated?: (core: Core, organizationId: string, flags: Record<string, string>) => Promise<unknown> } = {};
CLI_HOOKS.afterOrganizationCreated = createOwnerFromCli;

export function parseFlags(args: string[]): Record<string, string> {
  ...BILLING_CLI_COMMANDS,
  const flags: Record<string, string> = {};
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    if (!arg.startsWith('--')) throw new Error(`unexpected argument "${arg}"`);
    const [name, inline] = arg.slice(2).split('=', 2);
    flags[name] = inline ?? args[++index] ?? '';
  }
  return flags;
}

async function main(argv: string[]): Promise<void> {
  const commandName = argv.slice(0, 2).join(' ');
  const command = CLI_COMMANDS[commandName];
  if (!command) {
    console.error(`usage: npm run cli -- <${Object.keys(CLI_COMMANDS).join(' | ')}> [--flags]`);
    process.exit(2);
  }
  const config = loadConfig();
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn');
  const { orm, embedded } = await openDatabase(config, logger, true);
  try {
    await migrate(orm, { cipher: credentialsCipher(config) });
    const transport = new InProcessTransport(logger);
    const core = createCore({ config, logger, orm, transport, clock: new SystemClock(), ids: new UlidIdGenerator(), adapters: [] });
    console.log(await command(core, parseFlags(argv.slice(2))));
  } finally {
    await orm.close(true);
    await embedded?.stop();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(`error: ${(error as Error).message}`);
    process.exit(1);
  });
}
