import type { ChangeFeed } from '../../domain/ports/change-feed';
import type { Clock } from '../../domain/ports/clock';
import type { EventOutbox } from '../../domain/ports/event-outbox';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type { Transactor } from '../../domain/ports/transactor';
import type { WebhookDeliveryRepository, WebhookEndpointRepository } from '../../domain/ports/webhook-repositories';
import type { WebhookSender } from '../../domain/ports/webhook-sender';
import type { WebhookSigner } from '../../domain/ports/webhook-signer';
import type { RetryPolicy } from '../../domain/webhook/retry-policy';
import type { Deployment } from '../../domain/webhook/webhook-url';
import type { WebhookDelivery } from '../../domain/webhook/webhook-delivery';
import type { WebhookEndpoint } from '../../domain/webhook/webhook-endpoint';

/** One place in this process's dispatcher, taken before a delivery is inserted leased to it. */
export interface DispatchSlot {
  /**
   * Send the delivery now. Without `stored`, its row is committed with the lease already. With it, the row is being
   * inserted: `stored` resolves true once it is committed leased to this worker, false if it was not inserted (it
   * existed, or the insert failed), and the attempt is recorded only if true.
   */
  send(delivery: WebhookDelivery, endpoint: WebhookEndpoint, stored?: Promise<boolean>): void;
  /** Not inserted after all (it existed already). */
  release(): void;
}

/**
 * The dispatcher of this process, for fan-out: new deliveries it has room for are inserted leased to it and
 * sent at once, without waiting for a claim. Those it has no room for stay unleased for the claim.
 */
export interface LocalDispatch {
  readonly owner: string;
  readonly leaseMs: number;
  /** A slot for one delivery to this endpoint, or null when the endpoint or the process is at its limit. */
  reserve(endpointId: string): DispatchSlot | null;
}

/** The ports every webhook use case draws from; one object so the composition root wires them once. */
export interface WebhookDeps {
  readonly transactor: Transactor;
  readonly endpoints: WebhookEndpointRepository;
  readonly deliveries: WebhookDeliveryRepository;
  readonly outbox: EventOutbox;
  readonly signer: WebhookSigner;
  readonly sender: WebhookSender;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly settings: {
    readonly deployment: Deployment;
    readonly retryPolicy: RetryPolicy;
    readonly timeoutMs: number;
  };
  /** [0, 1) source for retry jitter; tests pin it. */
  readonly random: () => number;
  /** Called after a commit that made deliveries due now, so a local dispatcher sends them without waiting for its poll. */
  readonly onDeliveriesDue?: () => void;
  readonly localDispatch?: LocalDispatch;
  /** When given, fan-out keeps each tenant's receiving endpoints in memory for as long as this feed vouches for them. */
  readonly changes?: ChangeFeed;
}
