import type { PaymentPrimitives } from './payment.primitives';

export const PAYMENT_EVENT_TYPES = [
  'payment.authorized',
  'payment.captured',
  'payment.voided',
  'payment.canceled',
  'payment.failed',
  'payment.attempt_declined',
  'payment.checkout_not_configured',
  'payment.refunded',
  'payment.partially_refunded',
  'payment.fraud_review_resolved',
  'payment.authorization_expiring',
  'payment.late_payment_received',
  'antifraud.assessment_completed',
  'flow.notification',
  'payment_method.verified',
] as const;
export type PaymentEventType = (typeof PAYMENT_EVENT_TYPES)[number];

/**
 * A fact the payment aggregate recorded. `payment` is the aggregate as it stood right after the change, so the
 * outbox writer can build `data.object` without reading again; `previousAttributes` holds only what changed.
 */
export interface PaymentDomainEvent {
  readonly type: PaymentEventType;
  readonly paymentId: string;
  readonly organizationId: string;
  readonly environment: PaymentPrimitives['environment'];
  readonly occurredAt: Date;
  readonly previousAttributes: Record<string, unknown>;
  readonly payment: PaymentPrimitives;
  /** antifraud.assessment_completed: the assessment (in payment.antifraud) the event is about. */
  readonly assessmentId?: string;
  /** flow.notification: the webhook node's step it is about. */
  readonly notification?: { readonly nodeId: string; readonly data: Readonly<Record<string, unknown>> };
  /** payment_method.verified: a flow's zero_auth node verified the payment's card. */
  readonly verification?: { readonly nodeId: string; readonly status: 'valid' | 'invalid' | 'unavailable'; readonly connectorAccountId: string; readonly rawCode: string | null };
}
