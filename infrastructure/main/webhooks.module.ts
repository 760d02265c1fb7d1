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
import { WebhookReadModel } from '../persistence/webhook-read-model';
import type { Core } from './core';
import type { ModuleDefinition, ModuleInstance } from './module';

/** Tuning beyond the spec's variables (tests shorten the poll; operators rarely touch these). */
export interface WebhooksModuleOptions {
  readonly pollIntervalMs?: number;
  readonly maxConcurrent?: number;
  readonly perEndpoint?: number;
  readonly workerId?: string;
}

export function webhooksModule(options: WebhooksModuleOptions = {}): ModuleDefinition {
  return {
    name: 'webhooks',
    build(core: Core): ModuleInstance {
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
      };
      const readModel = new WebhookReadModel(core.orm);
      const attempt = new AttemptDelivery(deps);
      const fanOut = new FanOutEvent(deps);
      const logger = core.logger.child({ component: 'webhooks' });
      const workerId = options.workerId ?? `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
      core.services.provide('webhookReadModel', readModel);

      return {
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
            start: () => startWebhookFanOut(core.transport, fanOut, logger),
          },
          {
            name: 'webhook-dispatcher',
            start: async () => {
              dispatcher = new WebhookDeliveryDispatcher(core.orm, attempt, core.clock, logger, {
                workerId,
                leaseMs: settings.timeoutMs + 5_000,
                pollIntervalMs: options.pollIntervalMs,
                maxConcurrent: options.maxConcurrent,
                perEndpoint: options.perEndpoint,
              });
              dispatcher.start();
              const running = dispatcher;
              return {
                stop: async () => {
                  await running.stop();
                  if (dispatcher === running) dispatcher = null;
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
