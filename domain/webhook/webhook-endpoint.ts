import { DomainError } from '../shared/domain-error';
import type { Environment } from '../shared/environment';
import { mergeCustomHeaders, validateCustomHeaders, type CustomHeaders, type CustomHeadersPatch } from './custom-headers';
import { normalizeEnabledEvents } from './enabled-events';
import { matchesSubscription } from './event-types';
import { autoDisableReason, shouldAutoDisable } from './retry-policy';
import { validateWebhookUrl, type Deployment } from './webhook-url';
import { endpointReceives, nextEndpointStatus, type EndpointStatus } from './webhook-endpoint.transitions';

export const MAX_ENDPOINTS_PER_ENVIRONMENT = 20;
export const MAX_DESCRIPTION_LENGTH = 500;
export const SECRET_GRACE_PERIOD_MS = 24 * 60 * 60 * 1000;
export type GracePeriod = '24h' | 'none';

export interface WebhookEndpointState {
  id: string;
  organizationId: string;
  environment: Environment;
  url: string;
  description: string | null;
  enabledEvents: string[];
  customHeaders: CustomHeaders;
  status: EndpointStatus;
  consecutiveFailures: number;
  disabledReason: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  lastSuccessAt: Date | null;
  lastAttemptAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export interface RegisterEndpointInput {
  id: string;
  organizationId: string;
  environment: Environment;
  deployment: Deployment;
  url: string;
  description?: string | null;
  enabledEvents: string[];
  customHeaders?: CustomHeaders;
  enabled?: boolean;
  secret: string;
  now: Date;
}

export interface EndpointPatch {
  url?: string;
  description?: string | null;
  enabledEvents?: string[];
  customHeaders?: CustomHeadersPatch;
  enabled?: boolean;
}

export interface PatchOutcome {
  /** The endpoint was switched off by this patch: queued deliveries must be canceled. */
  switchedOff: boolean;
}

export interface AttemptOutcome {
  /** The service switched the endpoint off because of this failure: queued deliveries must be canceled. */
  autoDisabled: boolean;
}

function validateDescription(description: string | null | undefined): string | null {
  if (description === undefined || description === null) return null;
  if (typeof description !== 'string' || description.length > MAX_DESCRIPTION_LENGTH) {
    throw new DomainError('validation_failed', `description must be at most ${MAX_DESCRIPTION_LENGTH} characters.`, { param: 'body.description' });
  }
  return description;
}

/** The webhook endpoint aggregate: registration rules, health, secret rotation. */
export class WebhookEndpoint {
  private constructor(private readonly s: WebhookEndpointState) {}

  static register(input: RegisterEndpointInput): WebhookEndpoint {
    const ctx = { environment: input.environment, deployment: input.deployment };
    return new WebhookEndpoint({
      id: input.id,
      organizationId: input.organizationId,
      environment: input.environment,
      url: validateWebhookUrl(input.url, ctx),
      description: validateDescription(input.description),
      enabledEvents: normalizeEnabledEvents(input.enabledEvents),
      customHeaders: validateCustomHeaders(input.customHeaders ?? {}),
      status: input.enabled === false ? 'disabled' : 'active',
      consecutiveFailures: 0,
      disabledReason: null,
      secret: input.secret,
      previousSecret: null,
      previousSecretExpiresAt: null,
      lastSuccessAt: null,
      lastAttemptAt: null,
      createdAt: input.now,
      updatedAt: input.now,
      deletedAt: null,
    });
  }

  static restore(state: WebhookEndpointState): WebhookEndpoint {
    return new WebhookEndpoint({ ...state });
  }

  get state(): Readonly<WebhookEndpointState> {
    return this.s;
  }
  get id(): string {
    return this.s.id;
  }
  get status(): EndpointStatus {
    return this.s.status;
  }
  get enabled(): boolean {
    return this.s.status !== 'disabled';
  }
  get deleted(): boolean {
    return this.s.deletedAt !== null;
  }

  /** Sends happen only to live (not deleted), switched-on endpoints. */
  receivesDeliveries(): boolean {
    return !this.deleted && endpointReceives(this.s.status);
  }

  /** 409 guard for test and manual retry (spec: "test or retry on a disabled endpoint"). */
  assertReceivesDeliveries(): void {
    if (!this.receivesDeliveries()) {
      const why = this.deleted ? 'was deleted; a deleted endpoint receives nothing again' : `is ${this.s.status}; enable it first`;
      throw new DomainError('endpoint_disabled', `Webhook endpoint ${this.s.id} ${why}.`, {
        status: this.s.status,
      });
    }
  }

  subscribesTo(type: string): boolean {
    return this.receivesDeliveries() && matchesSubscription(this.s.enabledEvents, type);
  }

  applyPatch(patch: EndpointPatch, deployment: Deployment, now: Date): PatchOutcome {
    const wasOn = endpointReceives(this.s.status);
    const ctx = { environment: this.s.environment, deployment };
    if (patch.url !== undefined) {
      const url = validateWebhookUrl(patch.url, ctx);
      if (url !== this.s.url) {
        this.s.url = url;
        this.s.status = nextEndpointStatus(this.s.status, 'url_changed');
        this.s.consecutiveFailures = 0;
      }
    }
    if (patch.description !== undefined) this.s.description = validateDescription(patch.description);
    if (patch.enabledEvents !== undefined) this.s.enabledEvents = normalizeEnabledEvents(patch.enabledEvents);
    if (patch.customHeaders !== undefined) this.s.customHeaders = mergeCustomHeaders(this.s.customHeaders, patch.customHeaders);
    if (patch.enabled === true) {
      this.s.status = nextEndpointStatus(this.s.status, 'user_enable');
      this.s.consecutiveFailures = 0;
      this.s.disabledReason = null;
    } else if (patch.enabled === false) {
      this.s.status = nextEndpointStatus(this.s.status, 'user_disable');
      this.s.disabledReason = null;
    }
    this.s.updatedAt = now;
    return { switchedOff: wasOn && !endpointReceives(this.s.status) };
  }

  /** Records one attempt's outcome (spec: each non-2xx adds one consecutive failure; any 2xx resets). */
  recordAttempt(succeeded: boolean, now: Date): AttemptOutcome {
    this.s.lastAttemptAt = now;
    if (!endpointReceives(this.s.status)) {
      // A late outcome for an attempt in flight when the endpoint was switched off: keep the record, not the state.
      if (succeeded) this.s.lastSuccessAt = now;
      return { autoDisabled: false };
    }
    if (succeeded) {
      this.s.status = nextEndpointStatus(this.s.status, 'attempt_succeeded');
      this.s.consecutiveFailures = 0;
      this.s.lastSuccessAt = now;
      return { autoDisabled: false };
    }
    this.s.status = nextEndpointStatus(this.s.status, 'attempt_failed');
    this.s.consecutiveFailures += 1;
    if (shouldAutoDisable(this.s, now)) {
      this.s.status = nextEndpointStatus(this.s.status, 'auto_disable');
      this.s.disabledReason = autoDisableReason(this.s);
      this.s.updatedAt = now;
      return { autoDisabled: true };
    }
    return { autoDisabled: false };
  }

  /**
   * Rotation (spec: Limits, Secret grace period): with 24h the current secret becomes the only previous one until
   * the window ends; a rotation inside the window discards the older previous secret at once. With none the old
   * secret stops signing immediately.
   */
  rotateSecret(newSecret: string, grace: GracePeriod, now: Date): void {
    if (grace === '24h') {
      this.s.previousSecret = this.s.secret;
      this.s.previousSecretExpiresAt = new Date(now.getTime() + SECRET_GRACE_PERIOD_MS);
    } else {
      this.s.previousSecret = null;
      this.s.previousSecretExpiresAt = null;
    }
    this.s.secret = newSecret;
    this.s.updatedAt = now;
  }

  /** Secrets that sign a delivery now, newest first (two v1 values during a grace window). */
  signingSecrets(now: Date): string[] {
    const previousValid = this.s.previousSecret !== null && this.s.previousSecretExpiresAt !== null && this.s.previousSecretExpiresAt > now;
    return previousValid ? [this.s.secret, this.s.previousSecret!] : [this.s.secret];
  }

  previousSecretExpiresAt(now: Date): Date | null {
    return this.s.previousSecretExpiresAt !== null && this.s.previousSecretExpiresAt > now ? this.s.previousSecretExpiresAt : null;
  }

  /** Logical removal: deliveries and events stay queryable (spec: DELETE /v1/webhooks/{id}). */
  remove(now: Date): PatchOutcome {
    if (this.deleted) throw new DomainError('not_found', `No such webhook endpoint: ${this.s.id}`);
    const wasOn = endpointReceives(this.s.status);
    this.s.deletedAt = now;
    this.s.updatedAt = now;
    return { switchedOff: wasOn };
  }
}
