import type { Clock } from '../../domain/ports/clock';
import type { EventOutbox } from '../../domain/ports/event-outbox';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type { Transactor } from '../../domain/ports/transactor';
import type { WebhookDeliveryRepository, WebhookEndpointRepository } from '../../domain/ports/webhook-repositories';
import type { WebhookSender } from '../../domain/ports/webhook-sender';
import type { WebhookSigner } from '../../domain/ports/webhook-signer';
import type { RetryPolicy } from '../../domain/webhook/retry-policy';
import type { Deployment } from '../../domain/webhook/webhook-url';

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
}
