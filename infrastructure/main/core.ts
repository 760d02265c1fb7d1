/**
 * The core every module is built on: configuration, logging, database, units of work, the transactional
 * outbox with its relay and event transport, the clock, identifiers, and the foundation's use cases.
 */
import type { Clock } from '../../domain/ports/clock';
import type { IdGenerator } from '../../domain/ports/id-generator';
import { AuthenticateApiKey } from '../../application/api-key/authenticate-api-key';
import { CreateApiKey } from '../../application/api-key/create-api-key';
import { CreateOrganization } from '../../application/organization/create-organization';
import { usePreparedStatements, type Config } from '../config/config';
import type { Logger } from '../logging/logger';
import { RandomApiKeySecrets } from '../crypto/api-key-secrets';
import { SqlApiKeyRepository } from '../persistence/api-key.repository';
import { SqlOrganizationRepository } from '../persistence/organization.repository';
import { MikroOrmTransactor } from '../persistence/mikro-orm-transactor';
import { PostgresChangeFeed } from '../persistence/postgres-change-feed';
import type { Orm } from '../persistence/orm';
import { SqlIdempotencyStore } from '../persistence/sql-idempotency-store';
import { PostgresRateLimiter } from '../http/postgres-rate-limiter';
import type { EventTransport } from '../messaging/event-transport';
import { OutboxRelay } from '../messaging/outbox-relay';
import { SqlEventOutbox } from '../messaging/sql-event-outbox';
import { credentialsCipher } from './credentials-cipher';
import { ServiceMetrics } from '../metrics/service-metrics';
import { registerDatabaseGauges } from '../metrics/database-gauges';
import type { ConnectorCatalog } from '../../domain/ports/connector-catalog';
import { ProcessableConnectorCatalog } from '../../application/connector-account/processable-connector-catalog';
import { GrpcConnectorCatalog } from '../connectors/grpc-connector-catalog';

export interface AdapterAddress {
  readonly slug: string;
  /** host:port of the adapter's gRPC server. */
  readonly address: string;
  /** In-process (embedded) adapters only: tells the adapter where the core's CoreNotifications server listens. */
  readonly setCoreNotificationsAddress?: (address: string) => void;
  /** The sandbox acquirer's card vault (embedded adapters): the checkout page may call its origin (CSP connect-src). */
  readonly vaultUrl?: string;
}

export interface Core {
  readonly config: Config;
  readonly logger: Logger;
  readonly orm: Orm;
  readonly transactor: MikroOrmTransactor;
  /** What this process may keep in memory, and when to drop it (started by the service, not by the CLI). */
  readonly changes: PostgresChangeFeed;
  readonly outbox: SqlEventOutbox;
  readonly relay: OutboxRelay;
  readonly transport: EventTransport;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly idempotency: SqlIdempotencyStore;
  readonly rateLimiter: PostgresRateLimiter;
  /** This process's Prometheus metrics (served by main.ts on METRICS_HOST:METRICS_PORT). */
  readonly metrics: ServiceMetrics;
  /** The connector adapters (acquirer and antifraud gRPC servers) this installation is configured with. */
  readonly adapters: readonly AdapterAddress[];
  /**
   * The catalog over `adapters` (each Describe cached, bounded by CONNECTOR_DEADLINE_MS), capabilities narrowed to what
   * the core processes. One per process: connector accounts, routing and flow publishing read the same answers.
   */
  readonly connectorCatalog: ConnectorCatalog;
  /** Closes the catalog's gRPC channels (the service's stop, once every module has stopped). */
  closeConnectorCatalog(): void;
  readonly organizations: { readonly repository: SqlOrganizationRepository; readonly create: CreateOrganization };
  readonly apiKeys: {
    readonly repository: SqlApiKeyRepository;
    readonly create: CreateApiKey;
    readonly authenticate: AuthenticateApiKey;
  };
}

export interface CoreParts {
  readonly config: Config;
  readonly logger: Logger;
  readonly orm: Orm;
  readonly transport: EventTransport;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly adapters: readonly AdapterAddress[];
  readonly relayPollIntervalMs?: number;
}

export function createCore(parts: CoreParts): Core {
  const { orm, ids, clock, logger, transport } = parts;
  const transactor = new MikroOrmTransactor(orm, { preparedStatements: usePreparedStatements(parts.config), readBatchWindowMs: parts.config.databaseReadBatchWindowMs });
  const metrics = new ServiceMetrics();
  registerDatabaseGauges(metrics, { orm, transport, now: () => clock.now() });
  const relay = new OutboxRelay(transactor, transport, logger.child({ component: 'outbox-relay' }), {
    pollIntervalMs: parts.relayPollIntervalMs,
    onPublished: metrics.observePublished,
  });
  transactor.onCommit((eventIds) => relay.nudge(eventIds));
  const organizationRepository = new SqlOrganizationRepository();
  const changes = new PostgresChangeFeed(transactor, parts.config.databaseUrl, logger.child({ component: 'change-feed' }));
  const apiKeyRepository = new SqlApiKeyRepository();
  const secrets = new RandomApiKeySecrets();
  const adapterCatalog = new GrpcConnectorCatalog(parts.adapters, { deadlineMs: parts.config.connectorDeadlineMs });
  return {
    ...parts,
    // Everything reads capabilities narrowed to what the core processes (domain/connector-account/supported-capabilities.ts).
    connectorCatalog: new ProcessableConnectorCatalog(adapterCatalog),
    closeConnectorCatalog: () => adapterCatalog.close(),
    transactor,
    changes,
    outbox: new SqlEventOutbox(ids, clock),
    relay,
    // Replayed answers are kept 24 h and some carry secrets: sealed with the credentials key.
    idempotency: new SqlIdempotencyStore(transactor, credentialsCipher(parts.config)),
    rateLimiter: new PostgresRateLimiter(transactor),
    metrics,
    organizations: { repository: organizationRepository, create: new CreateOrganization(transactor, organizationRepository, ids, clock) },
    apiKeys: {
      repository: apiKeyRepository,
      create: new CreateApiKey(transactor, organizationRepository, apiKeyRepository, secrets, ids, clock),
      authenticate: new AuthenticateApiKey(transactor, apiKeyRepository, secrets, { changes, clock }),
    },
  };
}
