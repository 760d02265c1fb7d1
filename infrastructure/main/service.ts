/**
 * Assembles a running service from a core and the capability modules: the edge (HTTP), the workers
 * (consumers, schedulers) and the outbox relay, each only for the roles this process plays.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { createEdgeApp } from '../../edge/app';
import { buildOpenApiDocument } from '../../edge/openapi';
import { apiKeyAuthenticator } from '../../edge/routes/api-key.authenticator';
import { docsRoutes } from '../../edge/routes/docs.routes';
import { healthRoutes } from '../../edge/routes/health.routes';
import type { RouteDefinition } from '../../edge/http/route';
import packageJson from '../../package.json';
import { errorBody } from '../../edge/http/errors';
import type { Core } from './core';
import { DrainingHttpServer } from './draining-http-server';
import { tracedRequests } from '../tracing/http-server-spans';
import type { ModuleInstance, ModuleList, ReadinessCheck } from './module';

export interface ServiceRoles {
  readonly edge: boolean;
  readonly worker: boolean;
}

export interface RunningService<Services extends object = {}> {
  readonly core: Core;
  /** What the modules provide to each other, typed (tests drive workers' use cases through it). */
  readonly services: Services;
  readonly app: Koa;
  readonly routes: readonly RouteDefinition[];
  readonly modules: readonly ModuleInstance[];
  /** Base URL when the edge listens, else null. */
  readonly url: string | null;
  stop(): Promise<void>;
}

export const SERVICE_VERSION: string = packageJson.version;

export async function assembleService<Services extends object>(
  core: Core,
  moduleList: ModuleList<Services>,
  roles: ServiceRoles,
  listen: { port: number; host: string } | null,
): Promise<RunningService<Services>> {
  // Listening before any request is served: in-memory reads are only trusted while changes are heard.
  await core.changes.start();
  const { instances: modules, services } = await moduleList.build(core);

  let routes: RouteDefinition[] = [];
  const health = healthRoutes({
    serviceVersion: SERVICE_VERSION,
    readiness: async () => {
      const checks: ReadinessCheck[] = [
        { name: 'database', check: async () => { await core.orm.em.fork({ useContext: false }).execute('select 1'); return true; } },
        // Not essential: payments go on while the stream is down, their events wait in the outbox (degraded).
        { name: 'events', essential: false, check: () => core.transport.healthy() },
        ...modules.flatMap((module) => module.readinessChecks ?? []),
      ];
      return Promise.all(
        checks.map(async (check) => ({
          name: check.name,
          essential: check.essential ?? true,
          ok: await Promise.race([
            check.check().catch(() => false),
            new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2_000).unref()),
          ]),
        })),
      );
    },
    info: async () => {
      const parts = await Promise.all(modules.map(async (module) => (module.health ? module.health() : {})));
      return Object.assign({ connectors: [], declineCodes: null }, ...parts);
    },
  });
  let openApiCache: Record<string, unknown> | null = null;
  routes = [
    ...health,
    ...docsRoutes(() => (openApiCache ??= buildOpenApiDocument(routes, SERVICE_VERSION))),
    ...modules.flatMap((module) => module.routes ?? []),
  ];

  const app = createEdgeApp({
    routes,
    authenticators: [apiKeyAuthenticator(core.apiKeys.authenticate), ...modules.flatMap((module) => module.authenticators ?? [])],
    idempotency: core.idempotency,
    rateLimiter: core.rateLimiter,
    logger: core.logger,
    newRequestId: () => core.ids.next('req_'),
    now: () => core.clock.now(),
    trustedProxies: core.config.trustedProxies,
    observeRequest: core.metrics.observeRequest,
  });

  const runningWorkers: Array<{ stop(): Promise<void> }> = [];
  if (roles.worker) {
    for (const worker of modules.flatMap((module) => module.workers ?? [])) {
      runningWorkers.push(await worker.start());
      core.logger.info({ worker: worker.name }, 'worker started');
    }
  }
  // Consumers subscribe before the relay starts, so embedded mode's in-process stream has its readers.
  core.relay.start();

  let edge: DrainingHttpServer | null = null;
  let server: http.Server | null = null;
  let url: string | null = null;
  if (roles.edge && listen) {
    edge = new DrainingHttpServer(tracedRequests(app.callback()), (response) => refuseWhileDraining(response, core.ids.next('req_')));
    server = edge.server;
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(listen.port, listen.host, () => resolve());
    });
    const address = server.address() as AddressInfo;
    url = `http://${listen.host}:${address.port}`;
  }

  return {
    core,
    services,
    app,
    routes,
    modules,
    url,
    async stop() {
      // Requests in flight finish first (contract.md 8): they still need the relay, the change feed and the modules.
      if (edge && !(await edge.drain(core.config.shutdownGraceMs))) {
        core.logger.warn({ graceMs: core.config.shutdownGraceMs }, 'requests still running after SHUTDOWN_GRACE_MS were cut');
      }
      await core.relay.stop();
      await core.changes.stop();
      for (const worker of runningWorkers.reverse()) await worker.stop().catch(() => undefined);
      for (const module of [...modules].reverse()) await module.stop?.().catch(() => undefined);
      core.closeConnectorCatalog();
    },
  };
}

/** A request that reached a draining process (on a connection opened before): retry it, on a new connection. */
function refuseWhileDraining(response: http.ServerResponse, requestId: string): void {
  const body = errorBody('service_unavailable', 'This instance is shutting down; retry the request', requestId);
  response.writeHead(503, { 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': '1', 'Request-Id': requestId });
  response.end(JSON.stringify(body));
}
