import type { PaymentListQuery } from '../../domain/ports/payment-repositories';
import type { Transaction } from '../../domain/ports/transactor';
import { DomainError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from './payment-deps';
import { attemptsSummary, paymentObject } from './payment-object';

/** Cursor-paged list, newest first, every filter of the spec; each item carries its attempts summary. */
export class ListPayments {
  constructor(private readonly deps: PaymentDeps) {}

  async execute(input: { scope: TenantScope; query: PaymentListQuery }) {
    const page = await this.deps.transactor.read(async (tx) => {
      await this.checkCursor(tx, input.scope, input.query.startingAfter);
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

  /**
   * The cursor must be a payment of the caller's organization and environment: any other string compares as an
   * id all the same and answers a page that looks real (or empty). The refusal reads the same whether the id
   * exists elsewhere or nowhere, so it says nothing about other environments.
   */
  private async checkCursor(tx: Transaction, scope: TenantScope, startingAfter: string | undefined): Promise<void> {
    if (startingAfter === undefined) return;
    if (await this.deps.payments.find(tx, scope, startingAfter)) return;
    throw new DomainError('validation_failed', 'No such payment in this environment: query.startingAfter must be the id of the last payment of the previous page.', {
      param: 'query.startingAfter',
    });
  }
}
