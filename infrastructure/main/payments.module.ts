/**
 * Payments: card payments by direct routing (create, capture, void, refund), lists, full view and summary;
 * customers and saved payment methods; split recipients. Needs the connector accounts (connectors module) and,
 * when built before it, identity's card-testing guard and the published flows (see PaymentsNeeds).
 */
import { ManageCustomers } from '../../application/customers/manage-customers';
import { ManagePaymentMethods } from '../../application/customers/manage-payment-methods';
import { ManageRecipients } from '../../application/recipients/manage-recipients';
import { CapturePayment } from '../../application/payments/capture-payment';
import { CreatePayment } from '../../application/payments/create-payment';
import { DirectoryPaymentConnectors } from '../../application/payments/directory-payment-connectors';
import type { PaymentFlows } from '../../domain/ports/payment-flows';
import type { ProductionUsage } from '../../domain/ports/payment-repositories';
import { GetPayment } from '../../application/payments/get-payment';
import { ListPayments } from '../../application/payments/list-payments';
import { NotifyExpiringAuthorizations } from '../../application/payments/notify-expiring-authorizations';
import type { PaymentDeps } from '../../application/payments/payment-deps';
import { PaymentSummary } from '../../application/payments/payment-summary';
import { RefundPayment } from '../../application/payments/refund-payment';
import { ReconcileUnknownAttempts } from '../../application/payments/reconcile-unknown-attempts';
import { RecoverStuckPayments } from '../../application/payments/recover-stuck-payments';
import { FireDueFlowRunWaits, ResumeFlowRun } from '../../application/payments/resume-flow-run';
import { SettlePendingOperations } from '../../application/payments/settle-pending-operations';
import { ResolveFraudDecision } from '../../application/payments/resolve-fraud-decision';
import { VoidPayment } from '../../application/payments/void-payment';
import { declineTableCoverage } from '../../domain/payment/decline/classify-decline';
import type { CardSecurity } from '../../domain/ports/card-security';
import type { ConnectorAccountDirectory } from '../../domain/ports/connector-account-directory';
import type { PaymentConnectors } from '../../domain/ports/payment-connectors';
import { paymentRoutes } from '../../edge/routes/payments.routes';
import { paymentReviewRoutes } from '../../edge/routes/payment-review.routes';
import { DecidePaymentReview } from '../../application/payments/decide-payment-review';
import { recipientRoutes } from '../../edge/routes/recipients.routes';
import { SqlCustomerRepository, SqlProductionUsage, SqlSavedPaymentMethodRepository } from '../persistence/customer.repository';
import { SqlPaymentQueries } from '../persistence/payment.queries';
import { SqlPaymentRecoveryRepository } from '../persistence/payment-recovery.repository';
import { SqlFlowRunWaitRepository } from '../persistence/flow-run-wait.repository';
import { SqlCardRetryCounts } from '../persistence/card-retry-count.repository';
import { SqlPaymentRepository } from '../persistence/payment.repository';
import { SqlRecipientRepository } from '../persistence/recipient.repository';
import type { Core } from './core';
import { periodicWorker, type BackgroundWorker, type BuiltModule, type ModuleDefinition } from './module';
import { startCoreNotificationsServer } from '../grpc/core-notifications.server';
import { taskPoolWorker } from './task-pool-worker';
import { instrumentedConnectors } from '../metrics/instrumented-connectors';
import { PngQrCodeRenderer } from '../rendering/png-qr-code-renderer';
import { bankChargeParts } from './bank-charges.wiring';
import type { CheckBankCharges } from '../../application/payments/check-bank-charges';
import { checkoutParts } from './checkout.wiring';
import { SealedCheckoutSecrets } from '../crypto/checkout-client-secrets';
import { credentialsCipher } from './credentials-cipher';
import type { ExpireCheckouts } from '../../application/payments/expire-checkouts';

export interface PaymentsModuleOptions {
  /** Wraps the connector access (tests inject faults on chosen accounts). */
  readonly decorateConnectors?: (connectors: PaymentConnectors) => PaymentConnectors;
  /**
   * Serve core.v1.CoreNotifications (acquirer fraud decisions) on this port from the worker role; adapters are
   * given its address as CORE_NOTIFICATIONS_ADDRESS. Default: env CORE_NOTIFICATIONS_PORT, else not served.
   */
  readonly coreNotificationsPort?: number;
  /** How often the worker looks for pre-authorizations near their capture deadline (default 60 s). */
  readonly expiryScanIntervalMs?: number;
  /**
   * How long a payment may stay `processing` with no sign of life from its request before the recovery worker
   * takes it over. Default env PAYMENT_RECOVERY_GRACE_MS, else 2 x CONNECTOR_DEADLINE_MS + 5 s; never less than
   * the connector deadline + 1 s (a live request must never lose its payment).
   */
  readonly recoveryGraceMs?: number;
  /**
   * How often the recovery, reconciliation and settlement workers look for due tasks while they found none (default
   * 5 s); a worker whose task ends claims the next one at once.
   */
  readonly recoveryScanIntervalMs?: number;
  /** Tasks each of the three workers keeps in flight (default 8). */
  readonly recoveryConcurrency?: number;
}

/** What payments take from the modules built before them. */
export interface PaymentsNeeds {
  readonly connectorAccounts: ConnectorAccountDirectory;
  /** Without it card attempts are not screened for card testing. */
  readonly securityGuard?: CardSecurity;
  /** Without it every payment is routed directly (no published flow is looked up). */
  readonly paymentFlows?: PaymentFlows;
  /** Platform billing's gate: counts each live payment and refuses it without a trial or plan. Without it: counted only. */
  readonly productionAccess?: ProductionUsage;
}

/** What payments give to the modules built after them (and to tests driving the workers' use cases). */
export interface PaymentsServices {
  readonly paymentUsage: ProductionUsage;
  readonly fraudDecisions: ResolveFraudDecision;
  readonly authorizationExpiry: NotifyExpiringAuthorizations;
  readonly paymentRecovery: RecoverStuckPayments;
  readonly attemptReconciliation: ReconcileUnknownAttempts;
  readonly operationSettlement: SettlePendingOperations;
  /** Resumes waiting flow runs (every asynchronous input goes through it). */
  readonly flowRuns: ResumeFlowRun;
  /** The worker's task: waits due (timers, deadlines), claimed once across workers. */
  readonly flowRunWaits: FireDueFlowRunWaits;
  /** Pix and boleto: open charges checked with the bank (a due poll, a notice); tests play the poller with it. */
  readonly bankCharges: CheckBankCharges;
  /** The checkout expiry job (tests run it by hand to race two workers). */
  readonly checkoutExpiry: ExpireCheckouts;
  /**
   * Creates a payment the way POST /v1/payments does, under a trigger event of the caller's (`triggerEvent`: an
   * invoice's, a subscription renewal's, a retry's): it runs the environment's active flow of that trigger.
   */
  readonly triggeredPayments: CreatePayment;
}

export function paymentsModule(options: PaymentsModuleOptions = {}): ModuleDefinition<PaymentsNeeds, PaymentsServices> {
  return {
  name: 'payments',
  build(core: Core, needs: PaymentsNeeds): BuiltModule<PaymentsServices> {
    const { connectorAccounts, securityGuard: security, paymentFlows: flows } = needs;
    const usage = needs.productionAccess ?? new SqlProductionUsage();
    const deps: PaymentDeps = {
      transactor: core.transactor,
      outbox: core.outbox,
      clock: core.clock,
      ids: core.ids,
      payments: new SqlPaymentRepository(),
      queries: new SqlPaymentQueries(),
      customers: new SqlCustomerRepository(),
      paymentMethods: new SqlSavedPaymentMethodRepository(),
      recipients: new SqlRecipientRepository(),
      // Timed outside the tests' decorator, so the faults they inject are counted like an acquirer's.
      connectors: instrumentedConnectors((options.decorateConnectors ?? ((c: PaymentConnectors) => c))(new DirectoryPaymentConnectors(() => connectorAccounts)), core.metrics),
      usage,
      ...(security ? { security } : {}),
      ...(flows ? { flows } : {}),
      recordCall: (tx, scope, accountId, call) => connectorAccounts.recordCallOutcome(tx, scope, accountId, call),
      recovery: { store: new SqlPaymentRecoveryRepository(), graceMs: recoveryGraceMs(core, options) },
      waits: new SqlFlowRunWaitRepository(),
      retryCounts: new SqlCardRetryCounts(core.transactor),
      qrCodes: new PngQrCodeRenderer(),
      checkoutSecrets: new SealedCheckoutSecrets(credentialsCipher(core.config)),
    };
    const createPayment = new CreatePayment(deps);
    const customers = new ManageCustomers(deps);
    const paymentMethods = new ManagePaymentMethods(deps);
    const fraudDecisions = new ResolveFraudDecision(deps);
    const expiry = new NotifyExpiringAuthorizations(deps);
    const expiryWorker = periodicWorker('authorization-expiry', options.expiryScanIntervalMs ?? 60_000, () => expiry.run(), (error) =>
      core.logger.error({ err: error }, 'authorization expiry scan failed'),
    );
    const recoverStuck = new RecoverStuckPayments(deps, deps.recovery!);
    const flowRuns = new ResumeFlowRun(deps);
    const dueWaits = new FireDueFlowRunWaits(deps, flowRuns, deps.recovery!.graceMs);
    const reconcile = new ReconcileUnknownAttempts(deps, deps.recovery!);
    const settle = new SettlePendingOperations(deps);
    // Three independent workers, each with a bounded number of tasks in flight: a call to a stalled acquirer holds
    // one slot of one kind, never the others (one loop of batches waited for its slowest call, so double charges found
    // after a stall were refunded minutes later).
    const pool = { concurrency: options.recoveryConcurrency ?? 8, idleMs: options.recoveryScanIntervalMs ?? 5_000 };
    const recoveryWorkers = [
      taskPoolWorker({
        name: 'payment-recovery',
        ...pool,
        claim: (limit) => recoverStuck.claim(limit),
        work: (routing) => recoverStuck.recover(routing),
        keyOf: (routing) => routing.paymentId,
        onError: (error) => core.logger.error({ err: error }, 'payment recovery failed'),
      }),
      taskPoolWorker({
        name: 'attempt-reconciliation',
        ...pool,
        claim: (limit) => reconcile.claim(limit),
        work: (task) => reconcile.reconcile(task),
        keyOf: (task) => task.attemptId,
        onError: (error) => core.logger.error({ err: error }, 'attempt reconciliation failed'),
      }),
      taskPoolWorker({
        name: 'operation-settlement',
        ...pool,
        claim: (limit) => settle.due(limit),
        work: (operation) => settle.settle(operation),
        keyOf: (operation) => `${operation.paymentId}:${operation.intent.operationId}`,
        onError: (error) => core.logger.error({ err: error }, 'pending operation settlement failed'),
      }),
      taskPoolWorker({
        name: 'flow-run-waits',
        ...pool,
        claim: (limit) => dueWaits.claim(limit),
        work: (wait) => dueWaits.fire(wait),
        keyOf: (wait) => wait.paymentId,
        onError: (error) => core.logger.error({ err: error }, 'resuming a flow run whose wait fell due failed'),
      }),
    ];
    const notificationsPort = options.coreNotificationsPort ?? core.config.coreNotificationsPort ?? undefined;
    // Embedded adapters start before the modules, so they learn this server's address late (through their setter);
    // with them the server is always served, on a free loopback port unless a port is configured.
    const lateBound = core.adapters.filter((a) => a.setCoreNotificationsAddress);
    const checkout = checkoutParts(core, { ...deps, checkoutSecrets: deps.checkoutSecrets! });
    const bankCharges = bankChargeParts(core, deps, connectorAccounts, pool);
    const workers: BackgroundWorker[] = [expiryWorker, ...recoveryWorkers, ...checkout.workers, ...bankCharges.workers];
    if (notificationsPort !== undefined || lateBound.length > 0) {
      workers.push({
        name: 'core-notifications',
        async start() {
          const server = await startCoreNotificationsServer(
            { onFraudDecision: (report) => fraudDecisions.execute(report), onChargeOutcome: (report) => bankCharges.onChargeOutcome(report) },
            {
              port: notificationsPort ?? 0,
              host: notificationsPort !== undefined ? core.config.coreNotificationsHost : '127.0.0.1',
            },
          );
          for (const adapter of lateBound) adapter.setCoreNotificationsAddress!(server.address);
          core.logger.info({ address: server.address, embeddedAdapters: lateBound.map((a) => a.slug) }, 'core notifications server started');
          return { stop: () => server.stop() };
        },
      });
    }
    return {
      provides: {
        paymentUsage: usage,
        fraudDecisions,
        authorizationExpiry: expiry,
        paymentRecovery: recoverStuck,
        attemptReconciliation: reconcile,
        operationSettlement: settle,
        flowRuns,
        flowRunWaits: dueWaits,
        checkoutExpiry: checkout.checkoutExpiry,
        bankCharges: bankCharges.checks,
        triggeredPayments: createPayment,
      },
      routes: [
        ...paymentRoutes({
          create: createPayment,
          capture: new CapturePayment(deps),
          void: new VoidPayment(deps, bankCharges.operations),
          refund: new RefundPayment(deps),
          get: new GetPayment(deps),
          list: new ListPayments(deps),
          summary: new PaymentSummary(deps),
          customers,
          paymentMethods,
        }),
        ...paymentReviewRoutes({ review: new DecidePaymentReview(flowRuns) }),
        ...recipientRoutes({ recipients: new ManageRecipients(deps) }),
        ...checkout.routes,
        ...bankCharges.routes,
      ],
      workers,
      health: () => ({ declineCodes: declineTableCoverage() }),
    };
  },
  };
}

function recoveryGraceMs(core: Core, options: PaymentsModuleOptions): number {
  const deadline = core.config.connectorDeadlineMs;
  const configured = options.recoveryGraceMs ?? core.config.paymentRecoveryGraceMs ?? 2 * deadline + 5_000;
  return Math.max(configured, deadline + 1_000);
}

export const PAYMENTS_MODULE = paymentsModule();
