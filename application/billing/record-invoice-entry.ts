import { invoiceBalanceCents } from '../../domain/billing/invoice-computation';
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import type { BillingDeps } from './billing-deps';
import { invoiceView } from './billing-views';

export interface InvoiceEntryCommand {
  readonly invoiceId: string;
  /** receipt: money received (settlement); adjustment: a correction, negative for a credit. */
  readonly kind: 'receipt' | 'adjustment';
  readonly amountCents: number;
  readonly note: string;
}

/**
 * Operators record what was received for an invoice, or an adjustment; the balance follows, and an annual plan's
 * prepaid invoice settled in full opens the company's paid production.
 */
export class RecordInvoiceEntry {
  constructor(private readonly deps: BillingDeps) {}

  async execute(command: InvoiceEntryCommand) {
    if (!Number.isInteger(command.amountCents) || Math.abs(command.amountCents) > 9_999_999_999) {
      throw new DomainError('validation_failed', 'The amount must be an integer number of cents', { param: 'amount' });
    }
    if (command.kind === 'receipt' && command.amountCents <= 0) throw new DomainError('validation_failed', 'A receipt must be positive', { param: 'amount' });
    if (command.kind === 'adjustment' && command.amountCents === 0) throw new DomainError('validation_failed', 'An adjustment cannot be zero', { param: 'amount' });
    return this.deps.transactor.run(async (tx) => {
      const invoice = await this.deps.billing.invoice(tx, null, command.invoiceId, { forUpdate: true });
      if (!invoice) throw new NotFoundError('invoice', command.invoiceId);
      const now = this.deps.clock.now();
      const entry = { id: this.deps.ids.next(command.kind === 'receipt' ? 'rcpt_' : 'adj_'), kind: command.kind, amountCents: command.amountCents, note: command.note, recordedAt: now };
      await this.deps.billing.addInvoiceEntry(tx, invoice.id, entry);
      const updated = { ...invoice, entries: [...invoice.entries, entry] };
      if (invoice.kind === 'annual_prepaid' && invoiceBalanceCents(updated.totalCents, updated.entries) <= 0) {
        await this.deps.billing.releaseProduction(tx, invoice.companyId, now);
      }
      return invoiceView(updated, now, this.deps.catalog.paymentInstructions);
    });
  }
}
