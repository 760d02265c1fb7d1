/**
 * The method seam: what differs between card, debit_card, pix and boleto lives in one module per method (this
 * folder), and payment creation is one use case that asks the payment's method. Each method says what the merchant
 * must send (checked before anything is saved), how the payment starts, and which acquirer call an acquirer node
 * makes for it. Pure.
 */
import type { CaptureMethod, Initiator, MethodType } from '../payment.primitives';

/** The customer facts a method may require (a Pix payer's CPF/CNPJ, a boleto payer's address). */
export interface MethodCustomer {
  readonly name: string;
  readonly document: string | null;
  readonly address: {
    readonly postalCode: string;
    readonly line1: string;
    readonly streetNumber: string;
    readonly neighborhood: string;
    readonly city: string;
    readonly state: string;
  } | null;
}

/** What a creation request holds that a method's rules look at. */
export interface MethodRequest {
  readonly methodType: MethodType;
  /** A card token was sent (card.token). */
  readonly hasCard: boolean;
  readonly hasPaymentMethodId: boolean;
  readonly captureMethod: CaptureMethod;
  readonly installments: number;
  readonly initiator: Initiator;
  readonly customer: MethodCustomer | null;
  readonly hasPixOptions: boolean;
  readonly hasBoletoOptions: boolean;
}

/**
 * How a new payment of the method starts: sent for authorization at once (a card the merchant holds), waiting for
 * the buyer's card in the transparent checkout, or a charge issued for the payer to pay at the bank.
 */
export type MethodStart = 'authorize' | 'checkout' | 'issue_charge';

/** The acquirer call an acquirer node makes for a payment of the method. */
export type AcquirerCallKind = 'authorize' | 'create_pix_charge' | 'create_boleto';

export interface PaymentMethodRules {
  readonly methodType: MethodType;
  readonly acquirerCall: AcquirerCallKind;
  /** Refuses, with validation_failed naming the field, what the method cannot take; returns how the payment starts. */
  start(request: MethodRequest): MethodStart;
}
