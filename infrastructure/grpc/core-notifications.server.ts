import { status } from '@grpc/grpc-js';
import type { FraudDecisionReport, FraudDecisionResult } from '../../application/payments/resolve-fraud-decision';
import {
  CoreNotificationsService,
  ReportFraudDecisionRequest_Decision,
  type CoreNotificationsServer,
} from './generated/core/v1/core';
import { grpcError } from './grpc-errors';
import { startGrpcServer, unaryHandler, type RunningGrpcServer } from './grpc-server';

export interface CoreNotificationHandlers {
  onFraudDecision(report: FraudDecisionReport): Promise<FraudDecisionResult>;
  /** A Pix or boleto charge changed at the bank (a hint: checked by QueryCharge); false: no payment made that charge. */
  onChargeOutcome?(report: { readonly attemptId: string }): Promise<boolean>;
}

/**
 * The core's side of core.v1.CoreNotifications. Fraud decisions resolve the payment's review; a charge outcome (Pix,
 * boleto) is a hint: accepted once its payment is found, then checked with the bank (QueryCharge) before anything
 * changes. Without a handler it is answered accepted=false, so the adapter keeps the outcome for a later query.
 */
export function coreNotificationsImplementation(handlers: CoreNotificationHandlers): CoreNotificationsServer {
  return {
    reportChargeOutcome: unaryHandler(async (request) => {
      if (!handlers.onChargeOutcome) return { accepted: false };
      if (!request.idempotencyKey) throw grpcError(status.INVALID_ARGUMENT, 'idempotency_key (the attempt id that created the charge) is required');
      const found = await handlers.onChargeOutcome({ attemptId: request.idempotencyKey });
      if (!found) throw grpcError(status.NOT_FOUND, 'No payment made a charge with this idempotency key');
      return { accepted: true };
    }),
    reportFraudDecision: unaryHandler(async (request) => {
      const decision =
        request.decision === ReportFraudDecisionRequest_Decision.ACCEPTED
          ? 'accepted'
          : request.decision === ReportFraudDecisionRequest_Decision.REJECTED
            ? 'rejected'
            : null;
      if (!decision || !request.idempotencyKey) throw grpcError(status.INVALID_ARGUMENT, 'decision and idempotency_key are required');
      const result = await handlers.onFraudDecision({
        reportId: request.reportId,
        connectorSlug: request.connectorSlug,
        acquirerPaymentId: request.acquirerPaymentId,
        attemptId: request.idempotencyKey,
        decision,
      });
      if (result === 'unknown_payment') throw grpcError(status.NOT_FOUND, 'No payment under review matches this report');
      return { accepted: true };
    }),
  };
}

export function startCoreNotificationsServer(handlers: CoreNotificationHandlers, options: { port?: number; host?: string } = {}): Promise<RunningGrpcServer> {
  return startGrpcServer({
    services: [{ definition: CoreNotificationsService, implementation: coreNotificationsImplementation(handlers) }],
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.host !== undefined ? { host: options.host } : {}),
  });
}

/**
 * For composition roots that must start this server before the modules exist (embedded mode starts the
 * adapters first and hands them this server's address): decisions are routed to the payments module's
 * `fraudDecisions` service once it is registered; reports arriving earlier are refused (the adapter retries
 * or the payment stays pending).
 */
export function lazyFraudDecisionHandlers(resolve: () => { execute(report: FraudDecisionReport): Promise<FraudDecisionResult> } | undefined): CoreNotificationHandlers {
  return {
    onFraudDecision: async (report) => {
      const service = resolve();
      if (!service) return 'unknown_payment';
      return service.execute(report);
    },
  };
}
