import type { CardSecurity } from '../../domain/ports/card-security';
import type { Clock } from '../../domain/ports/clock';
import type { EventOutbox } from '../../domain/ports/event-outbox';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type { PaymentConnectors } from '../../domain/ports/payment-connectors';
import type {
  CustomerRepository,
  PaymentQueries,
  PaymentRepository,
  ProductionUsage,
  SavedPaymentMethodRepository,
} from '../../domain/ports/payment-repositories';
import type { RecipientRepository } from '../../domain/ports/recipient-repository';
import type { Transaction, Transactor } from '../../domain/ports/transactor';

/** Everything the payment use cases need, as ports. */
export interface PaymentDeps {
  readonly transactor: Transactor;
  readonly outbox: EventOutbox;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly payments: PaymentRepository;
  readonly queries: PaymentQueries;
  readonly customers: CustomerRepository;
  readonly paymentMethods: SavedPaymentMethodRepository;
  /** Split recipients: a payment's splits must name recipients of its organization and environment. */
  readonly recipients: RecipientRepository;
  readonly connectors: PaymentConnectors;
  readonly usage: ProductionUsage;
  /** Card-testing protection (identity's securityGuard); absent in installations without it. */
  readonly security?: CardSecurity;
  /**
   * Feeds the connector account's displayed health with one connector call: a queued write of the given unit of
   * work (the payment's outcome transaction, so it costs no round trip of its own).
   */
  readonly recordCall?: (tx: Transaction, scope: import('../../domain/shared/environment').TenantScope, accountId: string, call: ConnectorCall) => Promise<void>;
  /** How long a capture/void/refund claim protects the payment against a concurrent operation. */
  readonly operationClaimMs?: number;
  /** Published flows (the flows capability); absent: every payment is routed directly. */
  readonly flows?: import('../../domain/ports/payment-flows').PaymentFlows;
  /** A number in [0, 1) for weighted flow routes; Math.random by default. */
  readonly random?: () => number;
  /** Flow runs waiting for a timer, a review, a 3DS result or a bank notice (durable, claimed once when due). */
  readonly waits?: import('../../domain/ports/flow-run-waits').FlowRunWaitRepository;
  /** Client secrets of transparent checkout payments; absent: the transparent checkout is not offered. */
  readonly checkoutSecrets?: import('../../domain/ports/checkout-secrets').CheckoutSecrets;
  /** Draws a Pix charge's QR code (nextAction.qrCodeImage); absent: qrCodeImage is null. */
  readonly qrCodes?: import('../../domain/ports/qr-code-renderer').QrCodeRenderer;
  /** Crash recovery of authorizations (attempt intents saved before each call, routing lease); see routing-lease.ts. */
  readonly recovery?: import('./routing-lease').PaymentRecoveryDeps;
  /** Brand retry counts shared by every process (card-retry-budget.ts); absent: only a retry node's maxAttempts limits retries. */
  readonly retryCounts?: import('../../domain/ports/card-retry-counts').CardRetryCounts;
}

/** One connector call as the account's health history shows it. */
export interface ConnectorCall {
  readonly operation: string;
  readonly outcome: 'approved' | 'declined' | 'technical_failure' | 'timeout';
  readonly latencyMs: number;
}
