/**
 * Operators' billing commands: record what was received for a platform invoice (`billing settle`) or an adjustment
 * (`billing adjust`, negative for a credit). The invoice's balance follows, and a settled annual prepayment opens
 * the company's paid production.
 */
import { RecordInvoiceEntry } from '../../application/billing/record-invoice-entry';
import { billingDeps } from './billing.module';
import type { Core } from './core';

type BillingCliCommand = (core: Core, flags: Record<string, string>) => Promise<string>;

function cents(raw: string | undefined, flag: string): number {
  if (raw === undefined || !/^-?\d+$/.test(raw.trim())) throw new Error(`${flag} must be an integer number of cents`);
  return Number(raw.trim());
}

function requireInvoice(flags: Record<string, string>): string {
  if (!flags.invoice) throw new Error('--invoice is required');
  return flags.invoice;
}

export const BILLING_CLI_COMMANDS: Record<string, BillingCliCommand> = {
  'billing settle': async (core, flags) => {
    const invoice = await new RecordInvoiceEntry(billingDeps(core)).execute({
      invoiceId: requireInvoice(flags),
      kind: 'receipt',
      amountCents: cents(flags.amount, '--amount'),
      note: flags.note ?? 'settlement',
    });
    return JSON.stringify(invoice, null, 2);
  },
  'billing adjust': async (core, flags) => {
    if (!flags.note) throw new Error('--note is required (why the invoice is adjusted)');
    const invoice = await new RecordInvoiceEntry(billingDeps(core)).execute({
      invoiceId: requireInvoice(flags),
      kind: 'adjustment',
      amountCents: cents(flags.amount, '--amount'),
      note: flags.note,
    });
    return JSON.stringify(invoice, null, 2);
  },
};
