import { flowFactsOf } from '../../domain/flow-run/payment-facts';
import type { ManualFlowRun, ManualFlowRunRepository, ManualRunPayments } from '../../domain/ports/manual-flow-runs';
import type { Transaction } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';
import { entityManager } from './mikro-orm-transactor';
import { SqlPaymentRepository } from './payment.repository';
import { sameTenant } from './tenant-guard';

/** Manual flow runs on PostgreSQL (Migration20261201000200ManualFlowRuns). */
export class SqlManualFlowRunRepository implements ManualFlowRunRepository {
  async insert(tx: Transaction, run: ManualFlowRun): Promise<void> {
    await entityManager(tx).execute(
      `insert into manual_flow_runs (id, organization_id, environment, flow_id, payment_id, doc, created_at) values (?, ?, ?, ?, ?, ?::jsonb, ?)`,
      [run.id, run.organizationId, run.environment, run.flowId, run.paymentId, JSON.stringify(run), run.createdAt],
    );
  }

  async find(tx: Transaction, scope: TenantScope, flowId: string, id: string): Promise<ManualFlowRun | null> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from manual_flow_runs where id = ? and flow_id = ? and ${sameTenant()}`,
      [id, flowId, scope.organizationId, scope.environment],
    );
    const doc = rows[0]?.doc;
    return doc === undefined ? null : ((typeof doc === 'string' ? JSON.parse(doc) : doc) as ManualFlowRun);
  }
}

/** A payment's facts for a manual run, read as a payment's own run reads them (flowFactsOf). */
export class SqlManualRunPayments implements ManualRunPayments {
  private readonly payments = new SqlPaymentRepository();

  async find(tx: Transaction, scope: TenantScope, paymentId: string) {
    const payment = await this.payments.find(tx, scope, paymentId);
    if (!payment) return null;
    const p = payment.toPrimitives();
    return { id: p.id, status: p.status, amount: p.amount, currency: p.currency, facts: flowFactsOf(p) };
  }
}
