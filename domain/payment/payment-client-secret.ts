/**
 * The payment's client secret (spec: clientSecret is returned while the status is requires_payment_method or
 * requires_action, null afterwards): what the buyer's browser presents to the public routes (public view, confirm,
 * 3DS result). A transparent checkout is created with one (checkout.secret); any other payment gets one the first
 * time it enters either status (a Pix or boleto awaiting payment, a card payment paused at a three_ds node), stored
 * the same way: sealed (opened only to show it to the merchant) and its SHA-256 (what a presented secret is compared
 * with). Never in clear, never in an event.
 */
import type { PaymentInternals } from './payment-internals';
import type { PaymentPrimitives } from './payment.primitives';

export interface StoredClientSecret {
  readonly sealed: string;
  readonly sha256: string;
}

/** The payment's stored client secret, if it has one: the checkout's, else the one given when it awaited the buyer. */
export function clientSecretOf(p: { readonly checkout?: { readonly secret: StoredClientSecret } | null; readonly clientSecret?: StoredClientSecret | null }): StoredClientSecret | null {
  return p.checkout?.secret ?? p.clientSecret ?? null;
}

/** Whether the status is one a client secret is shown in (and the public routes serve). */
export function awaitsBuyer(p: Pick<PaymentPrimitives, 'status'>): boolean {
  return p.status === 'requires_payment_method' || p.status === 'requires_action';
}

/** Whether the payment awaits the buyer without a client secret yet: the caller issues one (needsClientSecret -> give). */
export function needsClientSecret(p: Pick<PaymentPrimitives, 'status'> & Parameters<typeof clientSecretOf>[0]): boolean {
  return awaitsBuyer(p) && clientSecretOf(p) === null;
}

/** Keeps the issued secret; a payment that has one keeps it (the merchant may already have handed it out). */
export function giveClientSecret(payment: PaymentInternals, secret: StoredClientSecret): void {
  if (clientSecretOf(payment.state) !== null) return;
  payment.state.clientSecret = { sealed: secret.sealed, sha256: secret.sha256 };
}
