/**
 * Every setting the service reads from the environment, parsed once. Defaults are the spec's values
 * (contract.md section 1). Nothing else in the code base reads process.env.
 */
import path from 'node:path';
import { TrustedProxies } from '../../edge/http/client-address';
import type { AuthLimits } from '../../edge/routes/auth.limits';
import { parseRateLimitOverrides } from './rate-limit-overrides';

export type Deployment = 'local' | 'production';

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Absent means embedded mode: PGlite under dataDir. */
  readonly databaseUrl: string | null;
  /** Absent means the in-process event transport. */
  readonly natsUrl: string | null;
  /** JetStream stream and subject prefix; tests use their own so runs never collide. */
  readonly natsStream: string;
  readonly natsSubjectPrefix: string;
  /** How long JetStream waits for a consumer's ack before redelivering; tests that kill workers shorten it. */
  readonly natsAckWaitMs: number;
  readonly deployment: Deployment;
  readonly dataDir: string;
  readonly logLevel: string;
  readonly webhookTimeoutMs: number;
  /** Seconds before attempts 2..7 of a webhook delivery. */
  readonly webhookRetryScheduleSeconds: readonly number[];
  readonly sandboxFraudReviewDelayMs: number;
  readonly smtpUrl: string | null;
  readonly authEmailEnabled: boolean;
  /** Base64 32-byte key for connector credentials; embedded mode keeps one under dataDir. */
  readonly credentialsKey: string | null;
  /** Secret that signs dashboard tokens; embedded mode keeps one under dataDir. */
  readonly sessionSecret: string | null;
  /** Deadline of one call to a connector adapter. */
  readonly connectorDeadlineMs: number;
  /** Connector adapters as `slug=host:port` pairs; empty in embedded mode (the sandboxes start in-process). */
  readonly connectorAdapters: ReadonlyArray<{ slug: string; address: string }>;
  /** Public base address, used in links (webhookUrl, reset e-mails). */
  readonly publicBaseUrl: string;
  /** Database pool size; embedded mode serves one connection. */
  readonly databasePoolSize: number;
  /** Statements run as server-side prepared statements when on PostgreSQL (never on embedded PGlite, see usePreparedStatements). */
  readonly databasePreparedStatements: boolean;
  /** How long batched reads wait for companions (infrastructure/persistence/read-batch.ts); 0: until the end of the turn. */
  readonly databaseReadBatchWindowMs: number;
  /**
   * Where the core serves core.v1.CoreNotifications for adapter processes (asynchronous outcomes such as
   * fraud decisions); null: not served, unless adapters run embedded (then on a free loopback port).
   */
  readonly coreNotificationsPort: number | null;
  readonly coreNotificationsHost: string;
  /** How long a payment may stay processing without its request before recovery takes over; null: 2 x deadline + 5 s. */
  readonly paymentRecoveryGraceMs: number | null;
  /** On SIGTERM, how long requests in flight may run before they are cut (contract.md 8). */
  readonly shutdownGraceMs: number;
  /** METRICS_HOST:METRICS_PORT: the Prometheus listener (contract.md 8); port 0 turns it off. */
  readonly metricsHost: string;
  readonly metricsPort: number;
  /** TRUSTED_PROXIES: CIDRs of the reverse proxies whose X-Forwarded-For is believed (contract.md 8); empty: none. */
  readonly trustedProxies: readonly string[];
  /** RATE_LIMITS: the dashboard limits an operator overrides by name (docs/auth.md); the rest keep their defaults. */
  readonly rateLimits: Partial<AuthLimits>;
  /** PLATFORM_BILLING_CATALOG: the plan catalog file (docs/billing.md); null: the default one in the repository. */
  readonly platformBillingCatalog: string | null;
  /** PLATFORM_TIME_ZONE: the IANA zone whose months platform invoices follow (America/Sao_Paulo). */
  readonly platformTimeZone: string;
}

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

function integer(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

function tcpPort(env: Env, name: string, fallback: number): number {
  const value = integer(env, name, fallback);
  if (value > 65_535) throw new ConfigError(`${name} must be a TCP port (0-65535), got "${env[name]}"`);
  return value;
}

function optional(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? null : raw.trim();
}

function parseSchedule(raw: string | undefined): number[] {
  if (!raw) return [30, 120, 600, 3600, 21600, 86400];
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (values.length !== 6 || values.some((v) => !Number.isFinite(v) || v < 0)) {
    throw new ConfigError('WEBHOOK_RETRY_SCHEDULE must list 6 non-negative numbers of seconds (attempts 2..7)');
  }
  return values;
}

function parseAdapters(raw: string | undefined): Array<{ slug: string; address: string }> {
  if (!raw) return [];
  return raw
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const [slug, address] = pair.split('=');
      if (!slug || !address) throw new ConfigError(`CONNECTOR_ADAPTERS entry "${pair}" must be slug=host:port`);
      return { slug: slug.trim(), address: address.trim() };
    });
}

/** Runs a parser whose errors are one sentence, as a ConfigError so start-up refuses with that sentence. */
function parsed<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
}

function parseTrustedProxies(raw: string | undefined): string[] {
  const entries = (raw ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
  try {
    TrustedProxies.parse(entries);
  } catch (error) {
    throw new ConfigError(`TRUSTED_PROXIES entry ${(error as Error).message}`);
  }
  return entries;
}

/**
 * Embedded mode's read-batch window. Measured on 26 Nov (2 cores, 50 clients): batches of a turn held 1.3 reads on
 * average there, and waiting 2 ms took a checkout (creation, then public confirm) from 71-90 to 121-134/s, direct card
 * payments unchanged. On PostgreSQL a turn already gathers about ten, and the same wait measured within the noise.
 */
const EMBEDDED_READ_BATCH_WINDOW_MS = 2;

/** pino's levels: a name it does not know would otherwise stop start-up with a stack trace from inside pino. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function parseLogLevel(raw: string | undefined): string {
  const level = raw === undefined || raw.trim() === '' ? 'info' : raw.trim().toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return level;
}

function parseTimeZone(raw: string | undefined): string {
  const zone = raw === undefined || raw.trim() === '' ? 'America/Sao_Paulo' : raw.trim();
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new ConfigError(`PLATFORM_TIME_ZONE must be an IANA time zone such as America/Sao_Paulo, got "${raw}"`);
  }
  return zone;
}

export function loadConfig(env: Env = process.env): Config {
  const deployment = (env.DEPLOYMENT ?? 'local') as Deployment;
  if (deployment !== 'local' && deployment !== 'production') throw new ConfigError('DEPLOYMENT must be local or production');
  const port = integer(env, 'PORT', 8080);
  const host = env.HOST ?? '127.0.0.1';
  const smtpUrl = optional(env, 'SMTP_URL');
  const authEmail = env.AUTH_EMAIL_ENABLED;
  return {
    port,
    host,
    databaseUrl: optional(env, 'DATABASE_URL'),
    natsUrl: optional(env, 'NATS_URL'),
    natsStream: env.NATS_STREAM ?? 'EVENTS',
    natsSubjectPrefix: env.NATS_SUBJECT_PREFIX ?? 'events',
    natsAckWaitMs: integer(env, 'NATS_ACK_WAIT_MS', 30_000, 1),
    deployment,
    dataDir: path.resolve(env.DATA_DIR ?? '.data'),
    logLevel: parseLogLevel(env.LOG_LEVEL),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1),
    webhookRetryScheduleSeconds: parseSchedule(env.WEBHOOK_RETRY_SCHEDULE),
    sandboxFraudReviewDelayMs: integer(env, 'SANDBOX_FRAUD_REVIEW_DELAY_MS', 5_000),
    smtpUrl,
    // contract.md 7: defaults to true when SMTP_URL is set.
    authEmailEnabled: authEmail === undefined || authEmail === '' ? smtpUrl !== null : authEmail === 'true' || authEmail === '1',
    credentialsKey: optional(env, 'CREDENTIALS_KEY'),
    sessionSecret: optional(env, 'SESSION_SECRET'),
    connectorDeadlineMs: integer(env, 'CONNECTOR_DEADLINE_MS', 5_000, 1),
    connectorAdapters: parseAdapters(env.CONNECTOR_ADAPTERS),
    publicBaseUrl: env.PUBLIC_BASE_URL ?? `http://${host}:${port}`,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', optional(env, 'DATABASE_URL') ? 10 : 1, 1),
    databasePreparedStatements: !['false', '0'].includes(env.DATABASE_PREPARED_STATEMENTS ?? ''),
    databaseReadBatchWindowMs: integer(env, 'DATABASE_READ_BATCH_WINDOW_MS', optional(env, 'DATABASE_URL') ? 0 : EMBEDDED_READ_BATCH_WINDOW_MS, 0),
    coreNotificationsPort: optional(env, 'CORE_NOTIFICATIONS_PORT') === null ? null : integer(env, 'CORE_NOTIFICATIONS_PORT', 0),
    coreNotificationsHost: env.CORE_NOTIFICATIONS_HOST ?? '127.0.0.1',
    paymentRecoveryGraceMs: optional(env, 'PAYMENT_RECOVERY_GRACE_MS') === null ? null : integer(env, 'PAYMENT_RECOVERY_GRACE_MS', 0),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 25_000),
    metricsHost: env.METRICS_HOST ?? '127.0.0.1',
    metricsPort: tcpPort(env, 'METRICS_PORT', 9464),
    trustedProxies: parseTrustedProxies(env.TRUSTED_PROXIES),
    rateLimits: parsed(() => parseRateLimitOverrides(env.RATE_LIMITS)),
    platformBillingCatalog: optional(env, 'PLATFORM_BILLING_CATALOG'),
    platformTimeZone: parseTimeZone(env.PLATFORM_TIME_ZONE),
  };
}

/**
 * Whether units of work prepare their statements: on PostgreSQL unless switched off. Never in embedded mode, where
 * PGlite's socket server runs every connection (an operator command's too) in its one session, so two
 * connections' statement names would meet.
 */
export function usePreparedStatements(config: Config): boolean {
  return config.databaseUrl !== null && config.databasePreparedStatements;
}
