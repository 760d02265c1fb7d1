/**
 * What a Pix or boleto payment keeps of its bank charge (shown as nextAction while the payer has to pay) and of money
 * the bank reported after the payment ended. Types only; the rules are in payment-bank-charge.ts.
 */
/** A Pix charge as the payer sees it (contract.md 5). */
export interface PixCharge {
  readonly type: 'pix';
  /** The EMV BR Code, copy-and-paste string. */
  readonly qrCode: string;
  /** The QR code as a PNG data URI, drawn once when the charge is issued. */
  readonly qrCodeImage?: string;
  readonly expiresAt: string;
}

/** A boleto as registered at the bank, with the terms printed on it. */
export interface BoletoCharge {
  readonly type: 'boleto';
  readonly digitableLine: string;
  readonly barcode: string;
  /** YYYY-MM-DD. */
  readonly dueDate: string;
  readonly pdfUrl: string;
  /** After the due date plus daysAfterDue the bank no longer takes it. */
  readonly expiresAt: string;
  readonly daysAfterDue: number;
  readonly fineBps: number;
  readonly interestMonthlyBps: number;
  readonly instructions: string | null;
}

export type BankCharge = PixCharge | BoletoCharge;

/** Money the bank reported paid after the payment had ended (voided or expired): the merchant must return or keep it. */
export interface LatePayment {
  readonly amount: number;
  readonly paidAt: string | null;
  readonly recordedAt: string;
}
