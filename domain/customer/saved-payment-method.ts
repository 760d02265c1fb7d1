import { DomainError } from '../shared/domain-error';
import type { Environment } from '../shared/environment';
import { classifiedDecline, type CardSummary, type PaymentDecline } from '../payment/payment';
import { cloneJson } from '../shared/clone-json';

/** valid / invalid / unavailable as the spec names them; not_verified until a zero-value authorization runs. */
export type VerificationStatus = 'not_verified' | 'valid' | 'invalid' | 'unavailable';

export interface PaymentMethodVerification {
  status: VerificationStatus;
  verifiedAt: string | null;
  rawCode: string | null;
  connectorAccountId: string | null;
  /** Why the issuer refused the card (invalid), classified by the decline table like a payment's decline. */
  decline?: PaymentDecline | null;
}

/** Where the reusable card lives: a vault (or network) token, never the number. */
export interface TokenReference {
  token: string;
  isNetworkToken: boolean;
  connectorAccountId: string | null;
}

export interface SavedPaymentMethodPrimitives {
  id: string;
  organizationId: string;
  environment: Environment;
  customerId: string;
  type: 'card';
  card: CardSummary;
  tokenReference: TokenReference;
  verification: PaymentMethodVerification;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

export interface PaymentMethodVerifiedEvent {
  readonly type: 'payment_method.verified';
  readonly paymentMethodId: string;
  readonly organizationId: string;
  readonly environment: Environment;
  readonly occurredAt: Date;
  readonly previousAttributes: { verification: PaymentMethodVerification };
  readonly paymentMethod: SavedPaymentMethodPrimitives;
}

/** A card saved on a customer (pm_), charged later with paymentMethodId. */
export class SavedPaymentMethod {
  private events: PaymentMethodVerifiedEvent[] = [];

  private constructor(private state: SavedPaymentMethodPrimitives) {}

  static saveCard(input: {
    id: string;
    organizationId: string;
    environment: Environment;
    customerId: string;
    card: CardSummary;
    token: string;
    isNetworkToken?: boolean;
    connectorAccountId?: string | null;
    now: Date;
  }): SavedPaymentMethod {
    if (typeof input.token !== 'string' || input.token.length < 8 || input.token.length > 256) {
      throw new DomainError('validation_failed', 'card.token must have 8 to 256 characters.', { param: 'body.card.token' });
    }
    const now = input.now.toISOString();
    return new SavedPaymentMethod({
      id: input.id,
      organizationId: input.organizationId,
      environment: input.environment,
      customerId: input.customerId,
      type: 'card',
      card: cloneJson(input.card),
      tokenReference: { token: input.token, isNetworkToken: input.isNetworkToken ?? false, connectorAccountId: input.connectorAccountId ?? null },
      verification: { status: 'not_verified', verifiedAt: null, rawCode: null, connectorAccountId: null },
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    });
  }

  static fromPrimitives(p: SavedPaymentMethodPrimitives): SavedPaymentMethod {
    return new SavedPaymentMethod(cloneJson(p));
  }

  toPrimitives(): SavedPaymentMethodPrimitives {
    return cloneJson(this.state);
  }

  get id(): string {
    return this.state.id;
  }
  get customerId(): string {
    return this.state.customerId;
  }
  get isDeleted(): boolean {
    return this.state.deletedAt !== null;
  }

  pullEvents(): PaymentMethodVerifiedEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  /**
   * Outcome of a zero-value authorization. Every validation emits payment_method.verified; unavailable says
   * nothing about the card (service down, brand unsupported), only invalid justifies asking for another card.
   */
  recordVerification(input: { status: Exclude<VerificationStatus, 'not_verified'>; rawCode?: string | null; connectorAccountId?: string | null; now: Date }): void {
    this.assertUsable();
    const previous = cloneJson(this.state.verification);
    this.state.verification = {
      status: input.status,
      verifiedAt: input.now.toISOString(),
      rawCode: input.rawCode ?? null,
      connectorAccountId: input.connectorAccountId ?? null,
      decline: input.status === 'invalid' && input.rawCode ? classifiedDecline(input.rawCode, this.state.card) : null,
    };
    this.state.updatedAt = input.now.toISOString();
    this.events.push({
      type: 'payment_method.verified',
      paymentMethodId: this.state.id,
      organizationId: this.state.organizationId,
      environment: this.state.environment,
      occurredAt: input.now,
      previousAttributes: { verification: previous },
      paymentMethod: this.toPrimitives(),
    });
  }

  /** A removed method or one whose validation said invalid cannot be charged. */
  assertChargeable(): void {
    this.assertUsable();
    if (this.state.verification.status === 'invalid') {
      throw new DomainError('payment_method_invalid', 'This saved card failed validation; ask the customer for another card.', { param: 'body.paymentMethodId' });
    }
  }

  delete(now: Date): void {
    this.assertUsable();
    this.state.deletedAt = now.toISOString();
    this.state.updatedAt = now.toISOString();
  }

  private assertUsable(): void {
    if (this.state.deletedAt) throw new DomainError('not_found', `No such payment method: ${this.state.id}`);
  }
}
