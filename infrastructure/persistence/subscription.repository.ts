import { Subscription, type SubscriptionPrimitives } from '../../domain/subscription/subscription';
import type { ClaimedRenewal, SubscriptionRepository } from '../../domain/ports/subscriptions';
import type { Transaction } from '../../domain/ports/transactor';
import type { Environment, TenantScope } from '../../domain/shared/environment';
import { entityManager } from './mikro-orm-transactor';
import { sameTenant } from './tenant-guard';

const parse = (doc: unknown): SubscriptionPrimitives => (typeof doc === 'string' ? JSON.parse(doc) : doc) as SubscriptionPrimitives;

/** Subscriptions on PostgreSQL (Migration20261201000100Subscriptions). */
export class SqlSubscriptionRepository implements SubscriptionRepository {
  async insert(tx: Transaction, subscription: Subscription): Promise<void> {
    const s = subscription.toPrimitives();
    await entityManager(tx).execute(
      `insert into subscriptions (id, organization_id, environment, customer_id, status, next_charge_at, doc, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)`,
      [s.id, s.organizationId, s.environment, s.customerId, s.status, s.nextChargeAt, JSON.stringify(s), s.createdAt, s.updatedAt],
    );
  }

  async update(tx: Transaction, subscription: Subscription, options: { leaseOwner?: string } = {}): Promise<boolean> {
    const s = subscription.toPrimitives();
    const guard = options.leaseOwner !== undefined ? ' and lease_owner = ?' : '';
    const rows = await entityManager(tx).execute<Array<{ id: string }>>(
      `update subscriptions set status = ?, next_charge_at = ?, doc = ?::jsonb, updated_at = ?, lease_owner = null, lease_until = null
        where id = ? and ${sameTenant()}${guard} returning id`,
      [s.status, s.nextChargeAt, JSON.stringify(s), s.updatedAt, s.id, s.organizationId, s.environment, ...(options.leaseOwner !== undefined ? [options.leaseOwner] : [])],
    );
    return rows.length > 0;
  }

  async find(tx: Transaction, scope: TenantScope, id: string, options: { forUpdate?: boolean } = {}): Promise<Subscription | null> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from subscriptions where id = ? and ${sameTenant()}${options.forUpdate ? ' for update' : ''}`,
      [id, scope.organizationId, scope.environment],
    );
    return rows[0] ? Subscription.fromPrimitives(parse(rows[0].doc)) : null;
  }

  async list(tx: Transaction, scope: TenantScope, query: { limit: number; startingAfter?: string; customerId?: string; status?: string }): Promise<Subscription[]> {
    const params: unknown[] = [scope.organizationId, scope.environment];
    let where = '';
    if (query.startingAfter) {
      where += ' and id < ?';
      params.push(query.startingAfter);
    }
    if (query.customerId) {
      where += ' and customer_id = ?';
      params.push(query.customerId);
    }
    if (query.status) {
      where += ' and status = ?';
      params.push(query.status);
    }
    params.push(query.limit + 1);
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from subscriptions where organization_id = ? and environment = ?${where} order by id desc limit ?`,
      params,
    );
    return rows.map((r) => Subscription.fromPrimitives(parse(r.doc)));
  }

  async claimDue(tx: Transaction, input: { now: Date; leaseOwner: string; leaseUntil: Date; limit: number }): Promise<ClaimedRenewal[]> {
    const rows = await entityManager(tx).execute<Array<{ id: string; organization_id: string; environment: Environment }>>(
      `update subscriptions s set lease_owner = ?, lease_until = ?
        where s.id in (
          select id from subscriptions
           where next_charge_at is not null and next_charge_at <= ? and (lease_until is null or lease_until < ?)
           order by next_charge_at
           limit ? for update skip locked)
        returning s.id, s.organization_id, s.environment`,
      [input.leaseOwner, input.leaseUntil, input.now, input.now, input.limit],
    );
    return rows.map((r) => ({ subscriptionId: r.id, scope: { organizationId: r.organization_id, environment: r.environment }, leaseOwner: input.leaseOwner }));
  }

  async holdsLease(tx: Transaction, subscriptionId: string, leaseOwner: string, now: Date): Promise<boolean> {
    const rows = await entityManager(tx).execute<Array<{ id: string }>>(
      `select id from subscriptions where id = ? and lease_owner = ? and lease_until >= ?`,
      [subscriptionId, leaseOwner, now],
    );
    return rows.length > 0;
  }
}
