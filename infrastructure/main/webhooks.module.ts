/**
 * Webhooks: endpoint management, the event log, the fan-out consumer (one delivery per subscribed endpoint)
 * and the delivery dispatcher (due deliveries, leases, retries). The consumer and the dispatcher run in the
 * worker role and in embedded mode; several workers share the work through JetStream and the leases.
 */
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { AttemptDelivery } from '../../application/webhook/attempt-delivery';
import { FanOutEvent } from '../../application/webhook/fan-out-event';
import {
  CreateWebhookEndpoint,
  DeleteWebhookEndpoint,
  RevealWebhookSecret,
  RotateWebhookSecret,
  UpdateWebhookEndpoint,
} from '../../application/webhook/manage-webhook-endpoints';
import { RetryWebhookDelivery } from '../../application/webhook/retry-webhook-delivery';
import { SendTestWebhook } from '../../application/webhook/send-test-webhook';
import type { WebhookDeps } from '../../application/webhook/webhook-deps';
import { eventRoutes } from '../../edge/routes/events.routes';
import { webhookRoutes } from '../../edge/routes/webhooks.routes';
import { AesGcmCredentialCipher, loadCredentialKeys } from '../crypto/aes-gcm-credential-cipher';
import { HmacWebhookSigner } from '../crypto/webhook-signer';
import { HttpWebhookSender } from '../http/webhook-http-sender';
import { WebhookDeliveryDispatcher } from '../messaging/webhook-delivery-dispatcher';
import { startWebhookFanOut } from '../messaging/webhook-fanout.consumer';
import { SqlWebhookDeliveryRepository } from '../persistence/webhook-delivery.repository';
import { SqlWebhookEndpointRepository } from '../persistence/webhook-endpoint.repository';
import { SqlWebhookReadModel } from '../persistence/webhook-read-model';
import { MikroOrmTransactor } from '../persistence/mikro-orm-transactor';
import { usePreparedStatements } from '../config/config';
import { openOrm, type Orm } from '../persistence/orm';
import type { Core } from './core';
import type { BuiltModule, ModuleDefinition } from './module';

/** Tuning beyond the spec's variables (tests shorten the poll; operators rarely touch these). */
export interface WebhooksModuleOptions {
  readonly pollIntervalMs?: number;
  readonly maxConcurrent?: number;
  readonly perEndpoint?: number;
  readonly workerId?: string;
  /**
   * Connections of the webhook workers' own pool (PostgreSQL only; 0 shares the service's pool). Their own,
   * so a request load that holds every pooled connection does not hold deliveries back, nor the reverse.
   */
  readonly workerPoolSize?: number;
}

/** What webhooks give to the modules built after them. */
export interface WebhooksServices {
  /** Events and deliveries as merchants read them. */
  readonly webhookReadModel: SqlWebhookReadModel;
}

/** Needs no other module: the events it delivers come through the transport, from any module's outbox. */
export function webhooksModule(options: WebhooksModuleOptions = {}): ModuleDefinition<unknown, WebhooksServices> {
  return {
    name: 'webhooks',
    build(core: Core): BuiltModule<WebhooksServices> {
      // Endpoint secrets are sealed at rest with the same key as connector credentials.
      const cipher = new AesGcmCredentialCipher(
        loadCredentialKeys({
          credentialsKey: core.config.credentialsKey,
          dataDir: core.config.dataDir,
          deployment: core.config.deployment,
          distributed: core.config.databaseUrl !== null,
        }),
      );
      const endpoints = new SqlWebhookEndpointRepository(cipher);
      const deliveries = new SqlWebhookDeliveryRepository();
      let dispatcher: WebhookDeliveryDispatcher | null = null;
      const settings = {
        deployment: core.config.deployment,
        retryPolicy: { scheduleSeconds: core.config.webhookRetryScheduleSeconds },
        timeoutMs: core.config.webhookTimeoutMs,
      };
      const deps: WebhookDeps = {
        transactor: core.transactor,
        endpoints,
        deliveries,
        outbox: core.outbox,
        signer: new HmacWebhookSigner(),
        sender: new HttpWebhookSender(() => core.clock.now()),
        clock: core.clock,
        ids: core.ids,
        settings,
        random: Math.random,
        onDeliveriesDue: () => dispatcher?.nudge(),
        changes: core.changes,
      };
      const leaseMs = settings.timeoutMs + 5_000;
      const readModel = new SqlWebhookReadModel(core.orm);
      const logger = core.logger.child({ component: 'webhooks' });
      const workerId = options.workerId ?? `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

      // The fan-out consumer and the dispatcher share one extra pool, opened by the first and closed by the last.
      const workerPoolSize = options.workerPoolSize ?? 4;
      const databaseUrl = core.config.databaseUrl;
      let workerOrm: Promise<Orm> | null = null;
      let workerUsers = 0;
      const workerDatabase = async (): Promise<{ orm: Orm; deps: WebhookDeps; release: () => Promise<void> }> => {
        if (!databaseUrl || workerPoolSize === 0) return { orm: core.orm, deps, release: async () => undefined };
        workerUsers += 1;
        const opening = (workerOrm ??= openOrm(databaseUrl, workerPoolSize));
        const orm = await opening;
        const transactor = new MikroOrmTransactor(orm, { preparedStatements: usePreparedStatements(core.config), readBatchWindowMs: core.config.databaseReadBatchWindowMs });
        core.changes.observe(transactor);
        return {
          orm,
          deps: { ...deps, transactor },
          release: async () => {
            workerUsers -= 1;
            if (workerUsers > 0) return;
            workerOrm = null;
            await orm.close();
          },
        };
      };

      return {
        provides: { webhookReadModel: readModel },
        routes: [
          ...webhookRoutes({
            transactor: core.transactor,
            endpoints,
            readModel,
            clock: core.clock,
            settings,
            create: new CreateWebhookEndpoint(deps),
            update: new UpdateWebhookEndpoint(deps),
            remove: new DeleteWebhookEndpoint(deps),
            rotate: new RotateWebhookSecret(deps),
            reveal: new RevealWebhookSecret(deps),
            test: new SendTestWebhook(deps),
            retry: new RetryWebhookDelivery(deps),
          }),
          ...eventRoutes(readModel),
        ],
        workers: [
          {
            name: 'webhook-fanout',
            start: async () => {
              const db = await workerDatabase();
              // New deliveries go straight to this process's dispatcher when it has room (no claim round trip).
              const localDispatch = { owner: workerId, leaseMs, reserve: (endpointId: string) => dispatcher?.reserve(endpointId) ?? null };
              const running = await startWebhookFanOut(core.transport, new FanOutEvent({ ...db.deps, localDispatch }), logger).catch(async (error) => {
                await db.release();
                throw error;
              });
              return {
                stop: async () => {
                  await running.stop();
                  await db.release();
                },
              };
            },
          },
          {
            name: 'webhook-dispatcher',
            start: async () => {
              const db = await workerDatabase();
              dispatcher = new WebhookDeliveryDispatcher(db.orm, new AttemptDelivery(db.deps), core.clock, logger, {
                workerId,
                leaseMs,
                pollIntervalMs: options.pollIntervalMs,
                maxConcurrent: options.maxConcurrent,
                perEndpoint: options.perEndpoint,
                onAttempt: core.metrics.observeWebhookRecord,
              });
              dispatcher.start();
              const running = dispatcher;
              return {
                stop: async () => {
                  await running.stop();
                  if (dispatcher === running) dispatcher = null;
                  await db.release();
                },
              };
            },
          },
        ],
        health: () => ({ webhooks: { workerId, retryScheduleSeconds: settings.retryPolicy.scheduleSeconds, timeoutMs: settings.timeoutMs } }),
      };
    },
  };
}

export const WEBHOOKS_MODULE = webhooksModule();
