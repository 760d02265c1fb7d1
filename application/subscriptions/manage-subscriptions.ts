import { Subscription } from '../../domain/subscription/subscription';
import type { RenewalInterval } from '../../domain/subscription/renewal-schedule';
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import { subscriptionObject } from './subscription-object';
import type { SubscriptionDeps } from './subscription-deps';

export interface CreateSubscriptionCommand {
  readonly customerId: string;
  readonly paymentMethodId: string;
  readonly amount: number;
  readonly currency?: string;
  readonly interval: RenewalInterval;
  readonly intervalCount?: number;
  readonly startDate?: string;
  readonly description?: string | null;
  readonly metadata?: Record<string, string | number | boolean | null>;
}

/** Create, read, list and cancel subscriptions (contract.md 4); the charges are renew-subscriptions.ts's. */
export class ManageSubscriptions {
  constructor(private readonly deps: SubscriptionDeps) {}

  async create(scope: TenantScope, command: CreateSubscriptionCommand) {
    const startDate = command.startDate !== undefined ? new Date(command.startDate) : null;
    if (startDate && Number.isNaN(startDate.getTime())) throw new DomainError('validation_failed', 'startDate must be an ISO 8601 date or date-time.', { param: 'body.startDate' });
    const subscription = await this.deps.transactor.run(async (tx) => {
      const customer = await this.deps.customers.find(tx, scope, command.customerId);
      if (!customer) throw new DomainError('resource_missing', `No such customer: ${command.customerId}`, { param: 'body.customerId' });
      const method = await this.deps.paymentMethods.find(tx, scope, command.paymentMethodId);
      if (!method) throw new DomainError('resource_missing', `No such payment method: ${command.paymentMethodId}`, { param: 'body.paymentMethodId' });
      // Renewals charge the customer's own saved card, never another customer's.
      if (method.customerId !== command.customerId) throw new DomainError('validation_failed', 'The payment method belongs to another customer.', { param: 'body.paymentMethodId' });
      method.assertChargeable();
      const created = Subscription.create({
        id: this.deps.ids.next('sub_'),
        ...scope,
        customerId: command.customerId,
        paymentMethodId: command.paymentMethodId,
        amount: command.amount,
        currency: command.currency ?? 'BRL',
        interval: command.interval,
        intervalCount: command.intervalCount ?? 1,
        startDate,
        description: command.description ?? null,
        metadata: command.metadata ?? {},
        now: this.deps.clock.now(),
      });
      await this.deps.subscriptions.insert(tx, created);
      return created;
    });
    return subscriptionObject(subscription.toPrimitives());
  }

  async get(scope: TenantScope, id: string) {
    const found = await this.deps.transactor.read((tx) => this.deps.subscriptions.find(tx, scope, id));
    if (!found) throw new NotFoundError('subscription', id);
    return subscriptionObject(found.toPrimitives());
  }

  async list(scope: TenantScope, query: { limit?: number; startingAfter?: string; customerId?: string; status?: string }) {
    const limit = query.limit ?? 10;
    const rows = await this.deps.transactor.read((tx) => this.deps.subscriptions.list(tx, scope, { ...query, limit }));
    return { object: 'list' as const, data: rows.slice(0, limit).map((s) => subscriptionObject(s.toPrimitives())), hasMore: rows.length > limit };
  }

  /** Ends it at once: no charge after this (a charge already under way ends as it ends). */
  async cancel(scope: TenantScope, id: string) {
    const subscription = await this.deps.transactor.run(async (tx) => {
      const found = await this.deps.subscriptions.find(tx, scope, id, { forUpdate: true });
      if (!found) throw new NotFoundError('subscription', id);
      found.cancel(this.deps.clock.now());
      await this.deps.subscriptions.update(tx, found);
      return found;
    });
    return subscriptionObject(subscription.toPrimitives());
  }
}
