import { Customer, type CustomerPrimitives } from '../../domain/customer/customer';
import { SavedPaymentMethod, type SavedPaymentMethodPrimitives } from '../../domain/customer/saved-payment-method';
import type { CustomerListQuery, CustomerRepository, ProductionUsage, SavedPaymentMethodRepository } from '../../domain/ports/payment-repositories';
import type { Transaction } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';
import { entityManager } from './mikro-orm-transactor';
import { sameTenant } from './tenant-guard';

const parse = <T>(doc: unknown): T => (typeof doc === 'string' ? JSON.parse(doc) : doc) as T;

export class SqlCustomerRepository implements CustomerRepository {
  async insert(tx: Transaction, customer: Customer): Promise<void> {
    const c = customer.toPrimitives();
    await entityManager(tx).execute(
      `insert into customers (id, organization_id, environment, name, email, document, doc, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)`,
      [c.id, c.organizationId, c.environment, c.name, c.email, c.document, JSON.stringify(c), c.createdAt, c.updatedAt],
    );
  }

  async update(tx: Transaction, customer: Customer): Promise<void> {
    const c = customer.toPrimitives();
    await entityManager(tx).execute(
      `update customers set name = ?, email = ?, document = ?, doc = ?::jsonb, updated_at = ? where id = ? and ${sameTenant()}`,
      [c.name, c.email, c.document, JSON.stringify(c), c.updatedAt, c.id, c.organizationId, c.environment],
    );
  }

  async find(tx: Transaction, scope: TenantScope, id: string, options: { forUpdate?: boolean } = {}): Promise<Customer | null> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from customers where id = ? and ${sameTenant()}${options.forUpdate ? ' for update' : ''}`,
      [id, scope.organizationId, scope.environment],
    );
    return rows[0] ? Customer.fromPrimitives(parse<CustomerPrimitives>(rows[0].doc)) : null;
  }

  async list(tx: Transaction, scope: TenantScope, query: CustomerListQuery): Promise<Customer[]> {
    const params: unknown[] = [scope.organizationId, scope.environment];
    let where = '';
    if (query.startingAfter) {
      where += ' and id < ?';
      params.push(query.startingAfter);
    }
    if (query.email) {
      where += ' and email = ?';
      params.push(query.email.toLowerCase());
    }
    params.push(query.limit + 1);
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from customers where organization_id = ? and environment = ?${where} order by id desc limit ?`,
      params,
    );
    return rows.map((r) => Customer.fromPrimitives(parse<CustomerPrimitives>(r.doc)));
  }
}

export class SqlSavedPaymentMethodRepository implements SavedPaymentMethodRepository {
  async insert(tx: Transaction, method: SavedPaymentMethod): Promise<void> {
    const m = method.toPrimitives();
    await entityManager(tx).execute(
      `insert into payment_methods (id, organization_id, environment, customer_id, doc, created_at, updated_at, deleted_at) values (?, ?, ?, ?, ?::jsonb, ?, ?, ?)`,
      [m.id, m.organizationId, m.environment, m.customerId, JSON.stringify(m), m.createdAt, m.updatedAt, m.deletedAt],
    );
  }

  async update(tx: Transaction, method: SavedPaymentMethod): Promise<void> {
    const m = method.toPrimitives();
    await entityManager(tx).execute(
      `update payment_methods set doc = ?::jsonb, updated_at = ?, deleted_at = ? where id = ? and ${sameTenant()}`,
      [JSON.stringify(m), m.updatedAt, m.deletedAt, m.id, m.organizationId, m.environment],
    );
  }

  async find(tx: Transaction, scope: TenantScope, id: string, options: { forUpdate?: boolean } = {}): Promise<SavedPaymentMethod | null> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from payment_methods where id = ? and ${sameTenant()} and deleted_at is null${options.forUpdate ? ' for update' : ''}`,
      [id, scope.organizationId, scope.environment],
    );
    return rows[0] ? SavedPaymentMethod.fromPrimitives(parse<SavedPaymentMethodPrimitives>(rows[0].doc)) : null;
  }

  async listForCustomer(tx: Transaction, scope: TenantScope, customerId: string): Promise<SavedPaymentMethod[]> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from payment_methods where organization_id = ? and environment = ? and customer_id = ? and deleted_at is null order by id desc limit 100`,
      [scope.organizationId, scope.environment, customerId],
    );
    return rows.map((r) => SavedPaymentMethod.fromPrimitives(parse<SavedPaymentMethodPrimitives>(r.doc)));
  }
}

export class SqlProductionUsage implements ProductionUsage {
  async countLivePayment(tx: Transaction, organizationId: string, paymentId: string, at: Date): Promise<void> {
    await entityManager(tx).execute(
      `insert into production_payment_usage (organization_id, payment_id, created_at) values (?, ?, ?) on conflict do nothing`,
      [organizationId, paymentId, at],
    );
  }
}
