import { API_VERSION } from '../../domain/ports/event-outbox';
import { defineRoute, type RouteDefinition } from '../http/route';

export interface ReadinessResult {
  readonly name: string;
  readonly ok: boolean;
  /**
   * False for a dependency the edge takes payments without (the event stream: events wait in the outbox until it is
   * back): its failure reports it `degraded` and the edge stays ready. Default true: its failure makes the edge 503.
   */
  readonly essential?: boolean;
}

export interface HealthSources {
  readonly serviceVersion: string;
  /** Named dependency checks; /health/ready is 200 unless an essential one fails. */
  readonly readiness: () => Promise<ReadinessResult[]>;
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
      summary: 'Readiness: 200 while payments can be taken (the database and the configured adapters answer); the event stream down is reported degraded',
      handler: async () => {
        // A load balancer reads only the status: an edge that can take payments stays in rotation even when the
        // event stream is down (its events wait in the outbox), and the body says what is degraded.
        const checks = await sources.readiness();
        const stateOf = (check: ReadinessResult) => (check.ok ? 'up' : check.essential === false ? 'degraded' : 'down');
        const down = checks.filter((check) => stateOf(check) === 'down').map((check) => check.name);
        const degraded = checks.filter((check) => stateOf(check) === 'degraded').map((check) => check.name);
        const status = down.length > 0 ? 'unavailable' : degraded.length > 0 ? 'degraded' : 'ready';
        const body = { status, checks: Object.fromEntries(checks.map((check) => [check.name, stateOf(check)])), down, degraded };
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
