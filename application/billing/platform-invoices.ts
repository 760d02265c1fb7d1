import { NotFoundError } from '../../domain/shared/domain-error';
import type { BillingDeps } from './billing-deps';
import { invoiceView } from './billing-views';

export type InvoiceStatusFilter = 'open' | 'paid' | 'overdue';

/** The company's platform invoices (newest first) and one invoice with its lines, receipts and adjustments. */
export class PlatformInvoices {
  constructor(private readonly deps: BillingDeps) {}

  async list(organizationId: string, status?: InvoiceStatusFilter) {
    const now = this.deps.clock.now();
    const views = await this.deps.transactor.read(async (tx) => {
      const companyId = await this.deps.billing.companyOf(tx, organizationId);
      if (!companyId) throw new NotFoundError('organization', organizationId);
      return (await this.deps.billing.invoices(tx, companyId)).map((invoice) => invoiceView(invoice, now, this.deps.catalog.paymentInstructions));
    });
    // `overdue` is an open invoice past its due date; `open` lists every open one, overdue or not.
    const wanted = views.filter((view) => !status || (status === 'overdue' ? view.overdue : view.status === status));
    return { object: 'list', data: wanted, hasMore: false };
  }

  async get(organizationId: string, id: string) {
    return this.deps.transactor.read(async (tx) => {
      const companyId = await this.deps.billing.companyOf(tx, organizationId);
      const invoice = companyId ? await this.deps.billing.invoice(tx, companyId, id) : null;
      if (!invoice) throw new NotFoundError('invoice', id);
      return invoiceView(invoice, this.deps.clock.now(), this.deps.catalog.paymentInstructions);
    });
  }
}
