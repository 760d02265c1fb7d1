/**
 * Process entry point. `node dist/infrastructure/main/main.js [role]`:
 *   all (default)  edge + worker + relay; embedded mode when DATABASE_URL/NATS_URL are absent
 *   edge           HTTP API and the outbox relay
 *   worker         consumers and schedulers (webhook delivery...) and the outbox relay
 *   migrate        applies pending migrations and exits
 *   connector <slug>  runs one connector adapter as its own gRPC server (see connector-process.ts)
 */
// First (contract.md 8): tracing starts before the rest loads, and only when the OTEL_* variables ask for it.
import { processTracing } from '../tracing/process-tracing';
import { ConfigError } from '../config/config';
import { assembleService } from './service';
import { startConfiguredMetricsServer } from '../metrics/metrics-server';
import { openInfrastructure } from './bootstrap';
import { MODULES } from './modules';
import { runConnectorProcess } from './connector-process-entry';
import { isAdapterRole, isServiceRole } from './process-roles';
import { announceRunningService, cliCommandFor } from './running-service';

async function main(argv: string[]): Promise<void> {
  const role = argv[0] ?? 'all';
  if (isAdapterRole(role)) {
    await runConnectorProcess(argv[1] ?? 'sandbox');
    return;
  }
  if (!isServiceRole(role)) {
    console.error(`unknown role "${role}"; use all, edge, worker, migrate or connector <slug>`);
    process.exit(2);
  }
  const infrastructure = await openInfrastructure({ startAdapters: role === 'all' });
  const { config, logger, core } = infrastructure;
  if (role === 'migrate') {
    logger.info('migrations are up to date');
    await infrastructure.close();
    return;
  }
  const service = await assembleService(core, MODULES, { edge: role !== 'worker', worker: role !== 'edge' }, role === 'worker' ? null : { port: config.port, host: config.host });
  logger.info({ role, url: service.url, embedded: !config.databaseUrl, transport: config.natsUrl ? 'jetstream' : 'in-process' }, 'service started');
  const metricsServer = await startConfiguredMetricsServer(core.metrics, config, logger);
  // The CLI finds this service's database and URL through the announcement (running-service.ts).
  const withdraw = !config.databaseUrl && service.url ? announceRunningService(config.dataDir, service.url) : () => undefined;
  if (!config.databaseUrl && config.deployment === 'local') await printFirstRunHint(infrastructure);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down: draining');
    // The drain is bounded by SHUTDOWN_GRACE_MS; a worker or connection that hangs after it must not keep the process.
    setTimeout(() => {
      logger.warn('shutdown did not finish in time; exiting');
      process.exit(0);
    }, config.shutdownGraceMs + 5_000).unref();
    withdraw();
    try {
      await service.stop();
      await metricsServer?.stop();
      await infrastructure.close();
      await processTracing?.shutdown(); // exports the spans still buffered
    } catch (error) {
      logger.error({ err: error }, 'error while shutting down');
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

/** First start of an empty embedded database: say how to create an account (never print a secret). */
async function printFirstRunHint(infrastructure: Awaited<ReturnType<typeof openInfrastructure>>): Promise<void> {
  const rows = await infrastructure.orm.em.fork({ useContext: false }).execute('select count(*)::int as n from organizations');
  if (Number(rows[0]?.n ?? 0) > 0) return;
  // Printed so it works as pasted at the repository root: with DATA_DIR when the service does not use the default.
  const dataDir = infrastructure.config.dataDir;
  console.log(
    [
      '',
      'No organization exists yet. In another terminal, at the repository root, set up a sandbox organization,',
      'API key and connector account (README, Quickstart) with:',
      `  ${cliCommandFor(dataDir, 'quickstart')}`,
      'or create them one by one:',
      `  ${cliCommandFor(dataDir, 'org create --name "ACME" --email owner@example.com')}`,
      `  ${cliCommandFor(dataDir, 'api-key create --org <ORG_ID> --environment sandbox')}`,
      '',
    ].join('\n'),
  );
}

main(process.argv.slice(2)).catch((error) => {
  // A setting the operator got wrong is one sentence naming it, not a stack trace.
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
