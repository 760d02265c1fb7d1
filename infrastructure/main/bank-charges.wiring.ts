/**
 * Pix and boleto's part of the payments module: the checks of open charges with the bank (polled by a task-pool worker
 * that claims each due poll once across workers, and run when a notice cites a charge), the inbound notice route, and
 * the charge outcomes adapters report over core.v1 (hints, checked like notices).
 */
import { CheckBankCharges } from '../../application/payments/check-bank-charges';
import type { PaymentDeps } from '../../application/payments/payment-deps';
import { ReceiveBankNotice } from '../../application/payments/receive-bank-notice';
import type { ConnectorAccountDirectory } from '../../domain/ports/connector-account-directory';
import type { RouteDefinition } from '../../edge/http/route';
import { bankChargeRoutes } from '../../edge/routes/bank-charges.routes';
import { BankChargeOperations } from '../../application/payments/bank-charge-operations';
import { SqlBankChargePayments } from '../persistence/bank-charge-payments.repository';
import type { Core } from './core';
import type { BackgroundWorker } from './module';
import { taskPoolWorker } from './task-pool-worker';

export interface BankChargeParts {
  readonly checks: CheckBankCharges;
  /** Void of an open charge (asks the bank first) and the sandbox's simulate. */
  readonly operations: BankChargeOperations;
  readonly routes: readonly RouteDefinition[];
  readonly workers: readonly BackgroundWorker[];
  /** A charge outcome an adapter reported (core.v1 ReportChargeOutcome): checked with the bank, never trusted. */
  onChargeOutcome(report: { readonly attemptId: string }): Promise<boolean>;
}

export function bankChargeParts(
  core: Core,
  deps: PaymentDeps,
  directory: ConnectorAccountDirectory,
  pool: { readonly concurrency: number; readonly idleMs: number },
): BankChargeParts {
  const checks = new CheckBankCharges(deps, { owner: core.ids.next('bcp_'), leaseMs: (deps.recovery?.graceMs ?? 30_000) });
  const logCheckFailure = (error: unknown, paymentId: string) => core.logger.error({ err: error, paymentId }, 'checking a bank charge failed');
  const notices = new ReceiveBankNotice(deps, directory, new SqlBankChargePayments(), checks, logCheckFailure);
  const operations = new BankChargeOperations(deps, checks, (slug) => directory.sandboxSimulator(slug));
  return {
    checks,
    operations,
    routes: bankChargeRoutes({ notices, operations }),
    workers: [
      taskPoolWorker({
        name: 'bank-charge-polling',
        ...pool,
        claim: (limit) => checks.claimDue(limit),
        work: (wait) => checks.poll(wait),
        keyOf: (wait) => wait.paymentId,
        onError: (error) => core.logger.error({ err: error }, 'polling a bank charge failed'),
      }),
    ],
    async onChargeOutcome(report) {
      const payment = await deps.transactor.read((tx) => deps.payments.findByAttemptId(tx, report.attemptId));
      if (!payment) return false;
      const p = payment.view();
      void checks.check({ organizationId: p.organizationId, environment: p.environment }, p.id).catch((error) => logCheckFailure(error, p.id));
      return true;
    },
  };
}
