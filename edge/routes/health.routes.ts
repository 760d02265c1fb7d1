import { API_VERSION } from '../../domain/ports/event-outbox';
import { defineRoute, type RouteDefinition } from '../http/route';

export interface HealthSources {
  readonly serviceVersion: string;
  /** Named dependency checks; /health/ready is 200 only when every one answers. */
  readonly readiness: () => Promise<Array<{ name: string; ok: boolean }>>;
  /** Installation facts contributed by modules (connectors, decline-table coverage...). */
  readonly info: () => Promise<Record<string, unknown>>;
}

export function healthRoutes(sources: HealthSources): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/health/live', operationId: 'getLiveness', tag: 'Health', auth: 'none', successStatus: 200,
      summary: 'Liveness: the process answers',
      handler: async () => ({ body: { status: 'ok' } }),
    }),
    defineRoute({
      method: 'get', path: '/health/ready', operationId: 'getReadiness', tag: 'Health', auth: 'none', successStatus: 200,
      summary: 'Readiness: 200 only when the database, the event stream and the configured adapters answer',
      handler: async () => {
        const checks = await sources.readiness();
        const down = checks.filter((check) => !check.ok).map((check) => check.name);
        const body = { status: down.length === 0 ? 'ready' : 'unavailable', checks: Object.fromEntries(checks.map((c) => [c.name, c.ok ? 'up' : 'down'])), down };
        return { status: down.length === 0 ? 200 : 503, body };
      },
    }),
    defineRoute({
      method: 'get', path: '/health', operationId: 'getInstallation', tag: 'Health', auth: 'none', successStatus: 200,
      summary: 'Installation info: API version, service version, loaded connectors, decline-table coverage',
      handler: async () => ({ body: { apiVersion: API_VERSION, version: sources.serviceVersion, ...(await sources.info()) } }),
    }),
  ];
}
