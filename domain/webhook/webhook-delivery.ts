import type { Environment } from '../shared/environment';
import { decideAfterFailure, type RetryPolicy } from './retry-policy';
import { nextDeliveryStatus, QUEUED_DELIVERY_STATUSES, type DeliveryStatus } from './webhook-delivery.transitions';

export const MAX_STORED_RESPONSE_BYTES = 8 * 1024;

export interface StoredResponse {
  status: number | null;
  body: string;
  truncated: boolean;
}

export interface DeliveryAttempt {
  number: number;
  startedAt: Date;
  durationMs: number;
  /** HTTP status of the answer, or null when there was none (connection error, timeout, blocked address). */
  responseStatus: number | null;
  succeeded: boolean;
  error: string | null;
}

export interface WebhookDeliveryState {
  id: string;
  organizationId: string;
  environment: Environment;
  endpointId: string;
  eventId: string;
  eventType: string;
  /** The exact bytes sent as the body (the signed body), as UTF-8 text. */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  nextRetryAt: Date | null;
  lastResponse: StoredResponse | null;
  attemptLog: DeliveryAttempt[];
  /** A delivery of webhook_endpoint.test: attempted once, never retried automatically, no effect on endpoint health. */
  isTest: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface AttemptResult {
  startedAt: Date;
  durationMs: number;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
}

/** Keeps at most 8 KB of the endpoint's answer (spec: Limits), cut on a character boundary, and says so. */
export function truncateResponseBody(body: string, maxBytes = MAX_STORED_RESPONSE_BYTES): { body: string; truncated: boolean } {
  const bytes = new TextEncoder().encode(body);
  if (bytes.length <= maxBytes) return { body, truncated: false };
  let cut = maxBytes;
  // Step back over UTF-8 continuation bytes so a multi-byte character is not split.
  while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut -= 1;
  return { body: new TextDecoder().decode(bytes.subarray(0, cut)), truncated: true };
}

export function isSuccessStatus(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

/** An attempt succeeded when the endpoint answered 2xx (and nothing failed while reading the answer). */
export function attemptSucceeded(result: Pick<AttemptResult, 'responseStatus' | 'error'>): boolean {
  return isSuccessStatus(result.responseStatus) && result.error === null;
}

export class WebhookDelivery {
  private constructor(private readonly s: WebhookDeliveryState) {}

  static create(input: {
    id: string;
    organizationId: string;
    environment: Environment;
    endpointId: string;
    eventId: string;
    eventType: string;
    body: string;
    isTest?: boolean;
    now: Date;
  }): WebhookDelivery {
    return new WebhookDelivery({
      id: input.id,
      organizationId: input.organizationId,
      environment: input.environment,
      endpointId: input.endpointId,
      eventId: input.eventId,
      eventType: input.eventType,
      body: input.body,
      status: 'pending',
      attempts: 0,
      nextRetryAt: input.now,
      lastResponse: null,
      attemptLog: [],
      isTest: input.isTest ?? false,
      createdAt: input.now,
      updatedAt: input.now,
    });
  }

  static restore(state: WebhookDeliveryState): WebhookDelivery {
    return new WebhookDelivery({ ...state, attemptLog: [...state.attemptLog] });
  }

  get state(): Readonly<WebhookDeliveryState> {
    return this.s;
  }
  get id(): string {
    return this.s.id;
  }
  get status(): DeliveryStatus {
    return this.s.status;
  }
  get queued(): boolean {
    return QUEUED_DELIVERY_STATUSES.includes(this.s.status);
  }

  /** Number of the attempt about to be made (Service-Delivery-Attempt). */
  nextAttemptNumber(): number {
    return this.s.attempts + 1;
  }

  recordAttempt(result: AttemptResult, policy: RetryPolicy, random: () => number): { succeeded: boolean } {
    const number = this.s.attempts + 1;
    const succeeded = attemptSucceeded(result);
    this.s.attempts = number;
    this.s.attemptLog.push({
      number,
      startedAt: result.startedAt,
      durationMs: result.durationMs,
      responseStatus: result.responseStatus,
      succeeded,
      error: result.error,
    });
    if (result.responseBody !== null || result.responseStatus !== null) {
      const { body, truncated } = truncateResponseBody(result.responseBody ?? '');
      this.s.lastResponse = { status: result.responseStatus, body, truncated };
    } else {
      this.s.lastResponse = null;
    }
    const finishedAt = new Date(result.startedAt.getTime() + result.durationMs);
    this.s.updatedAt = finishedAt;
    if (succeeded) {
      this.s.status = nextDeliveryStatus(this.s.status, 'attempt_succeeded');
      this.s.nextRetryAt = null;
      return { succeeded };
    }
    if (this.s.isTest) {
      this.s.status = nextDeliveryStatus(this.s.status, 'attempt_failed');
      this.s.nextRetryAt = null;
      return { succeeded };
    }
    const decision = decideAfterFailure(policy, number, finishedAt, random);
    if (decision.kind === 'exhausted') {
      this.s.status = nextDeliveryStatus(this.s.status, 'attempts_exhausted');
      this.s.nextRetryAt = null;
    } else {
      this.s.status = nextDeliveryStatus(this.s.status, 'attempt_failed');
      this.s.nextRetryAt = decision.nextRetryAt;
    }
    return { succeeded };
  }

  /** Manual retry from any state: attempts reset, sent again right away (spec: delivery status table). */
  manualRetry(now: Date): void {
    this.s.status = nextDeliveryStatus(this.s.status, 'manual_retry');
    this.s.attempts = 0;
    this.s.nextRetryAt = now;
    this.s.updatedAt = now;
  }

  /** The endpoint was disabled or removed: a queued delivery stops; finished ones keep their outcome. */
  cancelForSwitchedOffEndpoint(now: Date): boolean {
    if (!this.queued) return false;
    this.s.status = nextDeliveryStatus(this.s.status, 'endpoint_switched_off');
    this.s.nextRetryAt = null;
    this.s.updatedAt = now;
    return true;
  }
}
