/**
 * A Pix or boleto payment's nextAction (contract.md 5) while the payer has to pay: the BR Code with its QR image and
 * expiry, or the boleto's digitable line, barcode, due date, terms and printable page. Null once the payment moved on.
 */
import type { PaymentPrimitives } from '../../domain/payment/payment';

export type BankChargeAction =
  | { type: 'pix'; qrCode: string; qrCodeImage: string | null; expiresAt: string }
  | {
      type: 'boleto';
      digitableLine: string;
      barcode: string;
      dueDate: string;
      pdfUrl: string;
      expiresAt: string;
      daysAfterDue: number;
      fineBps: number;
      interestMonthlyBps: number;
      instructions: string | null;
    };

export function bankChargeAction(p: Pick<PaymentPrimitives, 'status' | 'bankCharge'>): BankChargeAction | null {
  const charge = p.bankCharge;
  if (!charge || p.status !== 'requires_action') return null;
  if (charge.type === 'pix') return { type: 'pix', qrCode: charge.qrCode, qrCodeImage: charge.qrCodeImage ?? null, expiresAt: charge.expiresAt };
  return {
    type: 'boleto',
    digitableLine: charge.digitableLine,
    barcode: charge.barcode,
    dueDate: charge.dueDate,
    pdfUrl: charge.pdfUrl,
    expiresAt: charge.expiresAt,
    daysAfterDue: charge.daysAfterDue,
    fineBps: charge.fineBps,
    interestMonthlyBps: charge.interestMonthlyBps,
    instructions: charge.instructions,
  };
}
