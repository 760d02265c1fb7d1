import type { PaymentListQuery } from '../../domain/ports/payment-repositories';
import { assertCursorInScope } from '../shared/list-cursor';
import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from './payment-deps';
import { attemptsSummary, paymentObject } from './payment-object';

/** Cursor-paged list, newest first, every filter of the spec; each item carries its attempts summary. */
export class ListPayments {
  constructor(private readonly deps: PaymentDeps) {}

  async execute(input: { scope: TenantScope; query: PaymentListQuery }) {
    const page = await this.deps.transactor.read(async (tx) => {
      await assertCursorInScope(input.query.startingAfter, 'payment', (id) => this.deps.payments.find(tx, input.scope, id));
      return this.deps.queries.list(tx, input.scope, input.query);
    });
    const limit = input.query.limit;
    const data = page.rows.slice(0, limit).map((p) => {
      const { attempts: _attempts, ...rest } = paymentObject(p);
      return { ...rest, attemptsSummary: attemptsSummary(p) };
    });
    return {
      object: 'list' as const,
      data,
      hasMore: page.rows.length > limit,
      ...(page.totalCount !== undefined ? { totalCount: page.totalCount } : {}),
    };
  }
}
