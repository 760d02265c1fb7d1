import { Customer, type CustomerFields } from '../../domain/customer/customer';
import { assertCursorInScope } from '../shared/list-cursor';
import type { Clock } from '../../domain/ports/clock';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type { CustomerListQuery, CustomerRepository } from '../../domain/ports/payment-repositories';
import type { Transactor } from '../../domain/ports/transactor';
import { NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import { customerObject } from '../payments/payment-object';

export interface CustomerDeps {
  readonly transactor: Transactor;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly customers: CustomerRepository;
}

/** Create, read, update and list customers (contract.md section 4). */
export class ManageCustomers {
  constructor(private readonly deps: CustomerDeps) {}

  async create(scope: TenantScope, fields: CustomerFields) {
    const customer = Customer.create({ id: this.deps.ids.next('cus_'), ...scope, ...fields, now: this.deps.clock.now() });
    await this.deps.transactor.run((tx) => this.deps.customers.insert(tx, customer));
    return customerObject(customer.toPrimitives());
  }

  async get(scope: TenantScope, id: string) {
    const customer = await this.deps.transactor.read((tx) => this.deps.customers.find(tx, scope, id));
    if (!customer) throw new NotFoundError('customer', id);
    return customerObject(customer.toPrimitives());
  }

  async update(scope: TenantScope, id: string, patch: Partial<CustomerFields>) {
    const customer = await this.deps.transactor.run(async (tx) => {
      const found = await this.deps.customers.find(tx, scope, id, { forUpdate: true });
      if (!found) throw new NotFoundError('customer', id);
      found.update(patch, this.deps.clock.now());
      await this.deps.customers.update(tx, found);
      return found;
    });
    return customerObject(customer.toPrimitives());
  }

  async list(scope: TenantScope, query: CustomerListQuery) {
    const rows = await this.deps.transactor.read(async (tx) => {
      await assertCursorInScope(query.startingAfter, 'customer', (id) => this.deps.customers.find(tx, scope, id));
      return this.deps.customers.list(tx, scope, query);
    });
    return {
      object: 'list' as const,
      data: rows.slice(0, query.limit).map((c) => customerObject(c.toPrimitives())),
      hasMore: rows.length > query.limit,
    };
  }
}
