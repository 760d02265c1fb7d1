import { NotFoundError, DomainError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { CustomHeaders, CustomHeadersPatch } from '../../domain/webhook/custom-headers';
import { MAX_ENDPOINTS_PER_ENVIRONMENT, WebhookEndpoint, type EndpointPatch, type GracePeriod } from '../../domain/webhook/webhook-endpoint';
import { SECRET_REVEALED_EVENT_TYPE } from '../../domain/webhook/event-types';
import type { WebhookDeps } from './webhook-deps';

export interface CreateEndpointInput {
  readonly url: string;
  readonly description?: string | null;
  readonly enabledEvents: string[];
  readonly customHeaders?: CustomHeaders;
  readonly enabled?: boolean;
}

/** POST /v1/webhooks: every registration rule, the URL once per environment, at most 20 endpoints. */
export class CreateWebhookEndpoint {
  constructor(private readonly deps: WebhookDeps) {}

  async execute(scope: TenantScope, input: CreateEndpointInput): Promise<WebhookEndpoint> {
    const { deps } = this;
    const now = deps.clock.now();
    // Rules first, outside the transaction: an invalid body never takes the tenant lock.
    const endpoint = WebhookEndpoint.register({
      id: deps.ids.next('whe_'),
      organizationId: scope.organizationId,
      environment: scope.environment,
      deployment: deps.settings.deployment,
      url: input.url,
      description: input.description,
      enabledEvents: input.enabledEvents,
      customHeaders: input.customHeaders,
      enabled: input.enabled,
      secret: deps.signer.generateSecret(),
      now,
    });
    await deps.transactor.run(async (tx) => {
      if ((await deps.endpoints.countForUpdate(tx, scope)) >= MAX_ENDPOINTS_PER_ENVIRONMENT) {
        throw new DomainError('webhook_endpoint_limit_reached', `At most ${MAX_ENDPOINTS_PER_ENVIRONMENT} webhook endpoints per environment.`);
      }
      await deps.endpoints.insert(tx, endpoint);
    });
    return endpoint;
  }
}

export interface UpdateEndpointInput {
  readonly url?: string;
  readonly description?: string | null;
  readonly enabledEvents?: string[];
  readonly customHeaders?: CustomHeadersPatch;
  readonly enabled?: boolean;
}

/** PATCH /v1/webhooks/{id}. Disabling cancels queued deliveries in the same transaction and says how many. */
export class UpdateWebhookEndpoint {
  constructor(private readonly deps: WebhookDeps) {}

  async execute(scope: TenantScope, id: string, patch: UpdateEndpointInput): Promise<{ endpoint: WebhookEndpoint; canceledDeliveries: number | null }> {
    const { deps } = this;
    return deps.transactor.run(async (tx) => {
      const endpoint = await deps.endpoints.find(tx, scope, id, { forUpdate: true });
      if (!endpoint) throw new NotFoundError('webhook endpoint', id);
      const now = deps.clock.now();
      const outcome = endpoint.applyPatch(patch as EndpointPatch, deps.settings.deployment, now);
      await deps.endpoints.update(tx, endpoint);
      const canceled = outcome.switchedOff ? await deps.deliveries.cancelQueued(tx, endpoint.id, now) : 0;
      return { endpoint, canceledDeliveries: patch.enabled === false ? canceled : null };
    });
  }
}

/** DELETE /v1/webhooks/{id}: logical removal; deliveries and events stay queryable, queued ones are canceled. */
export class DeleteWebhookEndpoint {
  constructor(private readonly deps: WebhookDeps) {}

  async execute(scope: TenantScope, id: string): Promise<{ endpoint: WebhookEndpoint; canceledDeliveries: number }> {
    const { deps } = this;
    return deps.transactor.run(async (tx) => {
      const endpoint = await deps.endpoints.find(tx, scope, id, { forUpdate: true });
      if (!endpoint) throw new NotFoundError('webhook endpoint', id);
      const now = deps.clock.now();
      endpoint.remove(now);
      await deps.endpoints.update(tx, endpoint);
      const canceledDeliveries = await deps.deliveries.cancelQueued(tx, endpoint.id, now);
      return { endpoint, canceledDeliveries };
    });
  }
}

/** POST /v1/webhooks/{id}/rotate-secret: a new secret, the old one kept for 24 hours (default) or dropped. */
export class RotateWebhookSecret {
  constructor(private readonly deps: WebhookDeps) {}

  async execute(scope: TenantScope, id: string, grace: GracePeriod = '24h'): Promise<WebhookEndpoint> {
    const { deps } = this;
    return deps.transactor.run(async (tx) => {
      const endpoint = await deps.endpoints.find(tx, scope, id, { forUpdate: true });
      if (!endpoint) throw new NotFoundError('webhook endpoint', id);
      endpoint.rotateSecret(deps.signer.generateSecret(), grace, deps.clock.now());
      await deps.endpoints.update(tx, endpoint);
      return endpoint;
    });
  }
}

export interface RevealRequester {
  readonly credentialType: 'api_key' | 'session';
  readonly credentialId: string | null;
  readonly userId: string | null;
  readonly ip: string;
  readonly userAgent: string | null;
  readonly requestId: string;
}

/**
 * POST /v1/webhooks/{id}/reveal-secret. The audit record is an event in the same transaction
 * (webhook_endpoint.secret_revealed, with who and from where). It lands in the event log and is never
 * delivered to endpoints: a secret reveal is not an integration signal, and `*` subscribers must not get it.
 */
export class RevealWebhookSecret {
  constructor(private readonly deps: WebhookDeps) {}

  async execute(scope: TenantScope, id: string, who: RevealRequester): Promise<{ endpoint: WebhookEndpoint; eventId: string }> {
    const { deps } = this;
    return deps.transactor.run(async (tx) => {
      const endpoint = await deps.endpoints.find(tx, scope, id);
      if (!endpoint) throw new NotFoundError('webhook endpoint', id);
      const [event] = await deps.outbox.append(tx, [
        {
          type: SECRET_REVEALED_EVENT_TYPE,
          scope,
          object: {
            object: 'webhook_endpoint',
            id: endpoint.id,
            url: endpoint.state.url,
            status: endpoint.status,
            revealedBy: { credentialType: who.credentialType, credentialId: who.credentialId, userId: who.userId },
            revealedFrom: { ip: who.ip, userAgent: who.userAgent },
            requestId: who.requestId,
          },
        },
      ]);
      return { endpoint, eventId: event.id };
    });
  }
}
