/**
 * The acquirer call of a Pix or boleto payment (the method seam's create_pix_charge / create_boleto): issues the
 * charge with the payment's attempt id as idempotency key, and reads the answer as the flow run takes it. A charge
 * awaiting payment is `pending_payment` (the run then waits for the bank), with what the payer needs to pay it.
 */
import type { BankCharge, PixCharge } from '../../domain/payment/bank-charge';
import type { QrCodeRenderer } from '../../domain/ports/qr-code-renderer';
import type { AcquirerGateway, ChargeOutput } from '../../domain/ports/acquirer-gateway';
import type { ConnectorCredentials } from '../../domain/ports/connector-description';
import type { AuthorizeRequest, BankChargeOptions } from '../../domain/ports/payment-recovery';

export type IssuedCharge =
  | { readonly kind: 'issued'; readonly acquirerPaymentId: string; readonly charge: BankCharge }
  | { readonly kind: 'refused'; readonly rawCode: string; readonly message: string };

export async function issueBankCharge(
  gateway: AcquirerGateway,
  credentials: ConnectorCredentials,
  idempotencyKey: string,
  request: AuthorizeRequest,
  options: BankChargeOptions,
  qrCodes: QrCodeRenderer | undefined,
  now: Date,
): Promise<IssuedCharge> {
  const common = { credentials, idempotencyKey, paymentId: request.paymentId, amount: request.amount, ...(request.customer ? { customer: request.customer } : {}) };
  if (options.methodType === 'pix') {
    const output = await gateway.createPixCharge({ ...common, expiresInSeconds: options.expiresInSeconds });
    if (output.status !== 'awaiting_payment' || !output.pix?.qrCode) return refusal(output);
    const qrCodeImage = qrCodes ? await qrCodes.pngDataUrl(output.pix.qrCode) : undefined;
    // The merchant asked for a lifetime from now: the service's clock decides when it is over (it then removes the
    // charge at the bank), so a bank whose clock runs late cannot keep a charge open past what the merchant was told.
    const expiresAt = new Date(now.getTime() + options.expiresInSeconds * 1000).toISOString();
    const charge: PixCharge = { type: 'pix', qrCode: output.pix.qrCode, ...(qrCodeImage ? { qrCodeImage } : {}), expiresAt };
    return { kind: 'issued', acquirerPaymentId: output.acquirerPaymentId, charge };
  }
  const output = await gateway.createBoleto({
    ...common,
    dueDate: options.dueDate,
    daysAfterDue: options.daysAfterDue,
    fineBps: options.fineBps,
    interestMonthlyBps: options.interestMonthlyBps,
    ...(options.instructions ? { instructions: options.instructions } : {}),
  });
  if (output.status !== 'awaiting_payment' || !output.boleto) return refusal(output);
  return {
    kind: 'issued',
    acquirerPaymentId: output.acquirerPaymentId,
    charge: {
      type: 'boleto',
      digitableLine: output.boleto.digitableLine,
      barcode: output.boleto.barcode,
      dueDate: options.dueDate,
      pdfUrl: output.boleto.pdfUrl,
      expiresAt: expiryOf(output),
      daysAfterDue: options.daysAfterDue,
      fineBps: options.fineBps,
      interestMonthlyBps: options.interestMonthlyBps,
      instructions: options.instructions ?? null,
    },
  };
}

/** An acquirer that does not say when its charge lapses is not trusted to have issued one. */
function expiryOf(output: ChargeOutput): string {
  if (!output.expiresAt) throw new Error(`the acquirer issued charge ${output.acquirerPaymentId} without an expiry`);
  return new Date(output.expiresAt).toISOString();
}

function refusal(output: ChargeOutput): IssuedCharge {
  return { kind: 'refused', rawCode: output.status, message: `The acquirer did not issue the charge (status ${output.status}).` };
}
