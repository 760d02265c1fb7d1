/**
 * Operators' command line (contract.md section 1; README, Quickstart):
 *   npm run cli -- quickstart [--name NAME] [--email owner@example.com]   sandbox organization, key and account
 *   npm run cli -- listen --key sk_sandbox_... --forward-to http://localhost:3000/webhooks
 *   npm run cli -- org create --name ACME --email owner@example.com
 *   npm run cli -- api-key create --org ORG_ID --environment sandbox|live [--name NAME] [--scopes a,b]
 *   npm run cli -- credentials reseal
 * Works against DATABASE_URL, or in embedded mode against the database of the service running with DATA_DIR
 * (cli-database.ts: never a second embedded database).
 */
import { ConfigError, loadConfig, type Config } from '../config/config';
import { createLogger } from '../logging/logger';
import { migrate } from '../persistence/orm';
import { SystemClock } from '../clock/system-clock';
import { UlidIdGenerator } from '../clock/ulid-id-generator';
import { InProcessTransport } from '../messaging/in-process-transport';
import { CliRefusal, noServiceRefusal, openCliDatabase } from './cli-database';
import { listen } from './cli-listen';
import { quickstart } from './cli-quickstart';
import { runningServiceOf, shellWord } from './running-service';
import { createCore, type Core } from './core';
import { credentialsCipher } from './credentials-cipher';
import { createOwnerFromCli } from './identity.module';
import { resealCredentials } from './cli-credentials';
import { BILLING_CLI_COMMANDS } from './cli-billing';

export type CliCommand = (core: Core, flags: Record<string, string>) => Promise<string>;

/** Extra commands registered by modules (e.g. the identity module's owner creation). */
export const CLI_COMMANDS: Record<string, CliCommand> = {
  'org create': async (core, flags) => {
    if (!flags.name) throw new Error('--name is required');
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
  'credentials reseal': (core) => resealCredentials(core),
  ...BILLING_CLI_COMMANDS,
};

/** Modules may add to organization creation (e.g. create the owner user from --email). */
export const CLI_HOOKS: { afterOrganizationCreated?: (core: Core, organizationId: string, flags: Record<string, string>) => Promise<unknown> } = {};
CLI_HOOKS.afterOrganizationCreated = createOwnerFromCli;

export function parseFlags(args: string[]): Record<string, string> {
  const flags: Record<string, string> = {};
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    if (!arg.startsWith('--')) throw new Error(`unexpected argument "${arg}"`);
    const [name, inline] = arg.slice(2).split('=', 2);
    flags[name] = inline ?? args[++index] ?? '';
  }
  return flags;
}

const USAGE = `usage: npm run cli -- <quickstart | listen | ${Object.keys(CLI_COMMANDS).join(' | ')}> [--flags]`;

async function main(argv: string[]): Promise<void> {
  const commandName = argv[0] === 'quickstart' || argv[0] === 'listen' ? argv[0] : argv.slice(0, 2).join(' ');
  const command = CLI_COMMANDS[commandName];
  if (!command && commandName !== 'quickstart' && commandName !== 'listen') {
    console.error(USAGE);
    process.exit(2);
  }
  const flags = parseFlags(argv.slice(commandName.split(' ').length));
  // Operators' commands are quiet unless LOG_LEVEL says otherwise.
  const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env });
  // The command line repeated in a refusal, with the API key as the README's variable rather than the secret.
  const args = argv.map((arg, index) => (argv[index - 1] === '--key' ? '"$SK"' : shellWord(arg))).join(' ');
  if (commandName === 'listen') return runListen(config, flags, args);
  const apiUrl = commandName === 'quickstart' ? serviceUrl(config, flags, args) : null;
  const logger = createLogger(config.logLevel);
  const { orm, embedded } = await openCliDatabase(config, logger, args);
  try {
    await migrate(orm, { cipher: credentialsCipher(config) });
    const transport = new InProcessTransport(logger);
    const core = createCore({ config, logger, orm, transport, clock: new SystemClock(), ids: new UlidIdGenerator(), adapters: [] });
    if (apiUrl) {
      console.log(await quickstart(core, { apiUrl, name: flags.name || 'Quickstart', flags, afterOrganizationCreated: CLI_HOOKS.afterOrganizationCreated }));
    } else {
      console.log(await command!(core, flags));
    }
  } finally {
    await orm.close(true);
    await embedded?.stop();
  }
}

/** The API of the service: --api, the running embedded service of DATA_DIR, or PUBLIC_BASE_URL with DATABASE_URL. */
function serviceUrl(config: Config, flags: Record<string, string>, args: string): string {
  const url = flags.api || runningServiceOf(config.dataDir)?.url || (config.databaseUrl ? config.publicBaseUrl : null);
  if (!url) throw noServiceRefusal(config, args);
  return url.replace(/\/+$/, '');
}

async function runListen(config: Config, flags: Record<string, string>, args: string): Promise<void> {
  if (!flags.key) throw new CliRefusal('--key is required: the API key (sk_sandbox_...) whose environment\'s events to forward');
  if (!flags['forward-to']) throw new CliRefusal('--forward-to is required: the local URL your receiver listens on, e.g. http://localhost:3000/webhooks');
  const interval = Number(flags['interval-ms'] || 1000);
  if (!Number.isInteger(interval) || interval < 100) throw new CliRefusal('--interval-ms must be an integer >= 100');
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await listen({ apiUrl: serviceUrl(config, flags, args), key: flags.key, forwardTo: flags['forward-to'], intervalMs: interval, print: (line) => console.log(line), stopped });
  console.log('Stopped.');
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error) => {
    // A refusal or a setting the operator got wrong is its one sentence.
    console.error(error instanceof CliRefusal || error instanceof ConfigError ? error.message : `error: ${(error as Error).message}`);
    process.exit(1);
  });
}
