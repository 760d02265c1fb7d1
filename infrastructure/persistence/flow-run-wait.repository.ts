import type { ClaimedFlowRunWait, FlowRunWait, FlowRunWaitRepository } from '../../domain/ports/flow-run-waits';
import type { AuthorizeRequest } from '../../domain/ports/payment-recovery';
import type { Transaction } from '../../domain/ports/transactor';
import type { Environment, TenantScope } from '../../domain/shared/environment';
import { entityManager } from './mikro-orm-transactor';

interface WaitRow {
  payment_id: string;
  organization_id: string;
  environment: Environment;
  kind: FlowRunWait['kind'];
  node_id: string;
  due_at: Date | string | null;
  request?: unknown;
  lease_owner?: string;
}

const at = (value: Date | string | null) => (value === null ? null : new Date(value));

/** Waiting flow runs on PostgreSQL (Migration20261128000300FlowRunWaits). */
export class SqlFlowRunWaitRepository implements FlowRunWaitRepository {
  async park(tx: Transaction, wait: FlowRunWait, now: Date): Promise<void> {
    await entityManager(tx).execute(
      `insert into flow_run_waits (payment_id, organization_id, environment, kind, node_id, due_at, request, lease_owner, lease_until, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?::jsonb, null, null, ?, ?)
       on conflict (payment_id) do update set kind = excluded.kind, node_id = excluded.node_id, due_at = excluded.due_at,
         request = excluded.request, lease_owner = null, lease_until = null, updated_at = excluded.updated_at`,
      [wait.paymentId, wait.scope.organizationId, wait.scope.environment, wait.kind, wait.nodeId, wait.dueAt, JSON.stringify(wait.request), now, now],
    );
  }

  async find(tx: Transaction, scope: TenantScope, paymentId: string, options: { forUpdate?: boolean } = {}): Promise<FlowRunWait | null> {
    const rows = await entityManager(tx).execute<WaitRow[]>(
      `select payment_id, organization_id, environment, kind, node_id, due_at, request from flow_run_waits
        where payment_id = ? and organization_id = ? and environment = ?${options.forUpdate ? ' for update' : ''}`,
      [paymentId, scope.organizationId, scope.environment],
    );
    const row = rows[0];
    if (!row) return null;
    const request = (typeof row.request === 'string' ? JSON.parse(row.request) : row.request) as AuthorizeRequest;
    return { paymentId: row.payment_id, scope: { organizationId: row.organization_id, environment: row.environment }, kind: row.kind, nodeId: row.node_id, dueAt: at(row.due_at), request };
  }

  async release(tx: Transaction, paymentId: string): Promise<void> {
    await entityManager(tx).execute(`delete from flow_run_waits where payment_id = ?`, [paymentId]);
  }

  async claimDue(tx: Transaction, input: { now: Date; leaseOwner: string; leaseUntil: Date; limit: number; kinds?: readonly FlowRunWait['kind'][] }): Promise<ClaimedFlowRunWait[]> {
    // A PostgreSQL array literal: a JS array would be expanded into a list of parameters (the kinds are our own names).
    const kinds = input.kinds ? `{${input.kinds.join(',')}}` : null;
    const rows = await entityManager(tx).execute<WaitRow[]>(
      `update flow_run_waits w set lease_owner = ?, lease_until = ?
        where w.payment_id in (
          select payment_id from flow_run_waits
           where due_at is not null and due_at <= ? and (lease_until is null or lease_until < ?)
             and (?::text[] is null or kind = any(?::text[]))
           order by due_at
           limit ? for update skip locked)
        returning w.payment_id, w.organization_id, w.environment, w.kind, w.node_id, w.due_at, w.lease_owner`,
      [input.leaseOwner, input.leaseUntil, input.now, input.now, kinds, kinds, input.limit],
    );
    return rows.map((row) => ({
      paymentId: row.payment_id,
      scope: { organizationId: row.organization_id, environment: row.environment },
      kind: row.kind,
      nodeId: row.node_id,
      dueAt: at(row.due_at),
      leaseOwner: row.lease_owner!,
    }));
  }

  async postpone(tx: Transaction, input: { paymentId: string; leaseOwner: string; dueAt: Date; now: Date }): Promise<boolean> {
    const rows = await entityManager(tx).execute<Array<{ payment_id: string }>>(
      `update flow_run_waits set due_at = ?, lease_owner = null, lease_until = null, updated_at = ?
        where payment_id = ? and lease_owner = ? returning payment_id`,
      [input.dueAt, input.now, input.paymentId, input.leaseOwner],
    );
    return rows.length > 0;
  }
}
