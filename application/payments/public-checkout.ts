/**
 * The buyer's side of the transparent checkout (spec: "Transparent checkout, browser side"): the browser names the
 * payment and proves it may act on it with the payment's client secret (Service-Client-Secret, compared in constant
 * time; anything else is 401 with one answer for every case, so payment ids cannot be probed). It reads a public
 * view without internal ids or connector data, and opens a tokenization session at the account that tokenizes the
 * card (the service's sandbox vault only: a real provider answers hosted_checkout_required).
 */
import { clientSecretOf } from '../../domain/payment/payment-client-secret';
import { bankChargeAction } from './bank-charge-action';
import { deviceFingerprintOf } from './device-fingerprint';
import type { Payment, PaymentPrimitives } from '../../domain/payment/payment';
import { isCheckoutExpired, publicCheckout } from '../../domain/payment/payment-checkout';
import type { CheckoutPayments } from '../../domain/ports/checkout-payments';
import { ConnectorFailure } from '../../domain/shared/connector-failure';
import { DomainError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from './payment-deps';
import { paymentEventToOutbox } from './payment-object';
import { threeDsAction } from './three-ds-action';
import { awaitsThreeDs } from '../../domain/payment/payment-three-ds';

/** The sandbox connector: the only one whose browser tokenization and confirmation the service runs itself. */
export const SANDBOX_CONNECTOR_SLUG = 'sandbox';
/** How long a tokenization session stays open at the vault. */
const SESSION_TTL_SECONDS = 15 * 60;

/** A payment the browser proved it may act on: its id and the scope the client secret opened. */
export interface CheckoutPass {
  readonly paymentId: string;
  readonly scope: TenantScope;
  /** The secret as presented (the vault checks it again for its session). */
  readonly clientSecret: string;
  /**
   * The payment as the secret's check read it, at the start of this request: what the request's checks and views
   * read, so a request reads it once (a change by another request is caught where it matters: in the transaction
   * that changes the payment, by its locked read, or, for the confirmation, by its write guarded on this copy).
   */
  readonly payment: Payment;
}

export interface PublicCheckoutDeps extends PaymentDeps {
  readonly checkoutPayments: CheckoutPayments;
  /** The merchant's name as the buyer sees it (the organization's name). */
  readonly merchantName: (organizationId: string) => Promise<string | null>;
}

/**
 * The one answer to every refused client secret, built only when a request is refused: constructing an Error
 * captures a stack trace, a cost an accepted request has no reason to pay.
 */
function refusedClientSecret(): DomainError {
  return new DomainError('invalid_client_secret', 'Send the payment\'s clientSecret in the Service-Client-Secret header.', { param: 'header.Service-Client-Secret' });
}

export class PublicCheckout {
  constructor(private readonly deps: PublicCheckoutDeps) {}

  /** The client secret's check: the payment's scope, or 401 invalid_client_secret (same answer for every failure). */
  async authenticate(paymentId: string, presented: string | undefined): Promise<CheckoutPass> {
    const secrets = this.deps.checkoutSecrets;
    if (!secrets || !presented || presented.length > 512) throw refusedClientSecret();
    const payment = await this.deps.checkoutPayments.findCommitted(paymentId);
    // A checkout's secret, or the one a Pix, boleto or 3DS payment was given when it came to await the buyer.
    const stored = payment ? clientSecretOf(payment.view()) : null;
    // Hashing the presented secret even without a payment keeps the time of both refusals alike.
    const matches = secrets.matches(presented, stored?.sha256 ?? '0'.repeat(64));
    if (!payment || !stored || !matches) throw refusedClientSecret();
    const p = payment.view();
    return { paymentId, scope: { organizationId: p.organizationId, environment: p.environment }, clientSecret: presented, payment };
  }

  async view(pass: CheckoutPass) {
    return publicPaymentView(pass.payment.toPrimitives(), await this.deps.merchantName(pass.scope.organizationId));
  }

  /** A new tokenization session for the next card (the previous one is spent after a decline). */
  async tokenizationSession(pass: CheckoutPass): Promise<{ sessionId: string; tokenizeUrl: string; expiresAt: string }> {
    const payment = pass.payment;
    await this.assertAwaitingCard(pass, payment);
    const p = payment.view();
    const accountId = p.checkout!.tokenizationAccountId;
    const opened = await this.deps.connectors.open(pass.scope, accountId).catch(() => null);
    if (!opened || !opened.account.enabled) {
      return this.notConfigured(pass, 'account_unavailable', {
        code: 'checkout_not_configured',
        message: `The connector account ${accountId} that tokenizes this payment's card is disabled or no longer exists.`,
        connectorAccount: { id: accountId, name: opened?.account.name ?? accountId },
      });
    }
    assertServiceRunsCheckout(p, opened.account.connectorSlug);
    try {
      return await opened.gateway.createTokenizationSession({ credentials: opened.credentials, paymentId: p.id, clientSecret: pass.clientSecret, ttlSeconds: SESSION_TTL_SECONDS });
    } catch (error) {
      if (error instanceof ConnectorFailure && (error.transportCode === 'UNAUTHENTICATED' || error.transportCode === 'INVALID_ARGUMENT' || error.transportCode === 'PERMISSION_DENIED')) {
        return this.notConfigured(pass, 'connector_credentials_invalid', {
          code: 'connector_credentials_invalid',
          message: `The connector account's credentials were refused when opening the tokenization session: ${error.message}`,
          connectorAccount: { id: opened.account.id, name: opened.account.name },
        });
      }
      if (error instanceof ConnectorFailure && error.transportCode === 'FAILED_PRECONDITION') throw hostedCheckoutRequired();
      throw new DomainError('connector_unavailable', 'The connector that tokenizes the card could not be reached; try again in a moment.');
    }
  }

  /** 409 once the payment no longer awaits a card; 410 (and canceled, payment.canceled) once its deadline passed. */
  async assertAwaitingCard(pass: CheckoutPass, payment: Payment): Promise<void> {
    const p = payment.view();
    const now = this.deps.clock.now();
    if (p.status === 'requires_payment_method' && isCheckoutExpired(p.checkout, now)) {
      await this.deps.transactor.run(async (tx) => {
        const locked = await this.deps.payments.find(tx, pass.scope, p.id, { forUpdate: true });
        if (!locked || locked.status !== 'requires_payment_method') return;
        locked.expireCheckout(now);
        await this.deps.payments.update(tx, locked);
        await this.deps.outbox.append(tx, locked.pullEvents().map(paymentEventToOutbox));
      });
      throw expiredRefusal(p.id);
    }
    if (p.status === 'canceled' && p.checkout?.endedBy === 'expired') throw expiredRefusal(p.id);
    if (p.status !== 'requires_payment_method') throw new DomainError('invalid_state', `Payment ${p.id} no longer awaits a card (status ${p.status}).`);
  }

  /** The browser confirm runs only where the service charges the card itself: the sandbox connector in sandbox. */
  async assertBrowserConfirmable(pass: CheckoutPass): Promise<void> {
    const p = pass.payment.view();
    const account = (await this.deps.connectors.accounts(pass.scope)).find((a) => a.id === p.checkout!.tokenizationAccountId);
    if (account) assertServiceRunsCheckout(p, account.connectorSlug);
  }

  /** payment.checkout_not_configured once per reason (the merchant's error), then 422 for the buyer, without the details. */
  private async notConfigured(pass: CheckoutPass, reason: string, error: { code: string; message: string; connectorAccount: { id: string; name: string } }): Promise<never> {
    await this.deps.transactor.run(async (tx) => {
      const locked = await this.deps.payments.find(tx, pass.scope, pass.paymentId, { forUpdate: true });
      if (!locked || locked.status !== 'requires_payment_method') return;
      if (!locked.recordCheckoutNotConfigured({ reason, error: { ...error, stage: 'tokenization_session' }, now: this.deps.clock.now() })) return;
      await this.deps.payments.update(tx, locked);
      await this.deps.outbox.append(tx, locked.pullEvents().map(paymentEventToOutbox));
    });
    throw new DomainError('checkout_not_configured', 'The merchant has not finished configuring card payments; the payment cannot take a card now.');
  }
}

function expiredRefusal(paymentId: string): DomainError {
  return new DomainError('payment_expired', `The checkout deadline of payment ${paymentId} has passed; the payment is canceled.`);
}

function hostedCheckoutRequired(): DomainError {
  return new DomainError('hosted_checkout_required', 'This payment\'s connector collects the card in its own hosted checkout: the service issues no tokenization session or browser confirmation for it.');
}

function assertServiceRunsCheckout(p: { environment: string }, connectorSlug: string): void {
  if (p.environment !== 'sandbox' || connectorSlug !== SANDBOX_CONNECTOR_SLUG) throw hostedCheckoutRequired();
}

/**
 * What the buyer's browser may see (spec: public view): no internal ids (customer, accounts, attempts) and no connector
 * data. cardAttempts is null outside the transparent checkout; deviceFingerprint is null unless an antifraud provider
 * script is to be injected before the card is entered (device-fingerprint.ts).
 */
export function publicPaymentView(p: PaymentPrimitives, merchantName: string | null) {
  const checkout = p.checkout ? publicCheckout(p.checkout) : null;
  const awaiting = p.status === 'requires_payment_method' || p.status === 'requires_action';
  return {
    object: 'payment' as const,
    id: p.id,
    status: p.status,
    amount: p.amount,
    currency: p.currency,
    methodType: p.methodType,
    description: p.description,
    merchant: { name: merchantName },
    canSaveCard: p.customerId !== null,
    // A Pix or boleto awaiting payment shows its charge (QR code, digitable line, printable boleto) for the page.
    nextAction: threeDsAction(p) ?? bankChargeAction(p),
    // While the buyer authenticates, the 3DS deadline is the one that counts; a bank charge's is its expiry.
    actionExpiresAt: awaitsThreeDs(p) ? (p.threeDs?.expiresAt ?? null) : awaiting ? (p.checkout?.expiresAt ?? bankChargeAction(p)?.expiresAt ?? null) : null,
    decline: p.decline ? { reason: p.decline.reason, consumerMessage: p.decline.consumerMessage, consumerMessages: p.decline.consumerMessages } : null,
    cardAttempts: checkout ? { used: checkout.attemptsUsed, remaining: checkout.attemptsRemaining, max: checkout.attemptsMax } : null,
    checkout: checkout ? { endedBy: checkout.endedBy } : null,
    card: p.card?.last4 ? { brand: p.card.brand, last4: p.card.last4 } : null,
    // Only while the buyer may still enter a card: after that no script has anything to collect.
    deviceFingerprint: p.status === 'requires_payment_method' ? deviceFingerprintOf(p.checkout) : null,
  };
}
