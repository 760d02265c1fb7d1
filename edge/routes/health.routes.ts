import { API_VERSION } from '../../domain/ports/event-outbox';
import { defineRoute, type RouteDefinition } from '../http/route';
import { freeObject, int, nullable, record, str } from '../http/response-schemas';
import type { JsonSchema } from '../http/validation';

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

const livenessResponse: JsonSchema = record({ status: { type: 'string', enum: ['ok'] } });

const checkState: JsonSchema = { type: 'string', enum: ['up', 'degraded', 'down'] };
const readinessResponse: JsonSchema = record({
  status: { type: 'string', enum: ['ready', 'degraded', 'unavailable'], description: 'unavailable comes with 503' },
  checks: { type: 'object', description: 'Each dependency by name (database, events, connector:<slug>...)', additionalProperties: checkState, examples: [{ database: 'up', events: 'up' }] },
  down: { type: 'array', description: 'Essential dependencies that failed (the edge answers 503)', items: str },
  degraded: { type: 'array', description: 'Dependencies the edge takes payments without that failed', items: str },
});

/** The core's facts; modules add their own (platformBilling, dashboardEmail, webhooks...), so more fields may appear. */
const installationResponse: JsonSchema = record({
  apiVersion: { type: 'string', description: 'The apiVersion every event and webhook carries' },
  version: { type: 'string', description: 'The service version' },
  connectors: {
    type: 'array',
    description: 'Connectors that can be used now, with what each takes',
    items: record({ slug: str, name: str, kind: str, capabilities: { type: 'array', items: str } }),
  },
  declineCodes: nullable({ ...freeObject, description: 'Coverage of the decline table (codes, reversible, irreversible...)', properties: { codes: int } }),
});

export function healthRoutes(sources: HealthSources): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/health/live', operationId: 'getLiveness', tag: 'Health', auth: 'none', successStatus: 200,
      summary: 'Liveness: the process answers', response: livenessResponse,
      handler: async () => ({ body: { status: 'ok' } }),
    }),
    defineRoute({
      method: 'get', path: '/health/ready', operationId: 'getReadiness', tag: 'Health', auth: 'none', successStatus: 200,
      summary: 'Readiness: 200 while payments can be taken (the database and the configured adapters answer); the event stream down is reported degraded',
      response: readinessResponse,
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
      response: installationResponse,
      handler: async () => ({ body: { apiVersion: API_VERSION, version: sources.serviceVersion, ...(await sources.info()) } }),
    }),
  ];
}
