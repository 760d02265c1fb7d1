/**
 * A new card payment: the checks on what the merchant asked for, and the state it starts in (submitted, nothing
 * tried yet).
 */
import { DomainError } from '../shared/domain-error';
import type { Environment } from '../shared/environment';
import { cloneJson as clone } from '../shared/clone-json';
import {
  MAX_PAYMENT_AMOUNT,
  emptyReferences,
  isAmount,
  type CaptureMethod,
  type CardSummary,
  type Currency,
  type Initiator,
  type MethodType,
  type MitType,
  type PaymentFlowRun,
  type PaymentPrimitives,
  type SplitEntry,
} from './payment.primitives';
import { nextPaymentState, type PaymentStatus } from './payment.transitions';

export interface CreateCardPaymentInput {
  id: string;
  organizationId: string;
  environment: Environment;
  amount: number;
  currency?: Currency;
  methodType?: MethodType;
  captureMethod?: CaptureMethod;
  customerId?: string | null;
  paymentMethodId?: string | null;
  /** null: a Pix or boleto payment. */
  card: CardSummary | null;
  installments?: number;
  initiator?: Initiator;
  mitType?: MitType | null;
  softDescriptor?: string | null;
  description?: string | null;
  externalId?: string | null;
  metadata?: Record<string, string | number | boolean | null>;
  clientIp?: string | null;
  clientUserAgent?: string | null;
  deviceId?: string | null;
  flowId?: string | null;
  pinnedConnectorAccountId?: string | null;
  /** The run as its first step left it (before any acquirer answered). */
  flowRun?: PaymentFlowRun | null;
  splits?: SplitEntry[];
  now: Date;
}

/** The state of a card payment just submitted; throws validation_failed for an amount, installments or splits out of bounds. */
export function newCardPaymentState(input: CreateCardPaymentInput): PaymentPrimitives {
  if (!isAmount(input.amount)) {
    throw new DomainError('validation_failed', `amount must be an integer between 1 and ${MAX_PAYMENT_AMOUNT}.`, { param: 'body.amount' });
  }
  const installments = input.installments ?? 1;
  if (!Number.isInteger(installments) || installments < 1 || installments > 24) {
    throw new DomainError('validation_failed', 'installments must be an integer between 1 and 24.', { param: 'body.installments' });
  }
  if ((input.splits ?? []).length > 20) {
    throw new DomainError('validation_failed', 'A payment takes at most 20 splits.', { param: 'body.splits' });
  }
  const status = nextPaymentState('new', 'submit') as PaymentStatus;
  const now = input.now.toISOString();
  return {
    id: input.id,
    organizationId: input.organizationId,
    environment: input.environment,
    status,
    amount: input.amount,
    currency: input.currency ?? 'BRL',
    methodType: input.methodType ?? 'card',
    captureMethod: input.captureMethod ?? 'automatic',
    capturedAmount: 0,
    refundedAmount: 0,
    refundStatus: null,
    decline: null,
    error: null,
    fraudReview: null,
    attempts: [],
    operations: [],
    splits: clone(input.splits ?? []),
    antifraud: [],
    customerId: input.customerId ?? null,
    paymentMethodId: input.paymentMethodId ?? null,
    card: input.card ? clone(input.card) : null,
    acquirer: emptyReferences(),
    connectorAccountId: null,
    connectorSlug: null,
    routingStopReason: null,
    installments,
    initiator: input.initiator ?? 'customer',
    mitType: input.mitType ?? null,
    softDescriptor: input.softDescriptor ?? null,
    description: input.description ?? null,
    externalId: input.externalId ?? null,
    metadata: clone(input.metadata ?? {}),
    clientIp: input.clientIp ?? null,
    clientUserAgent: input.clientUserAgent ?? null,
    deviceId: input.deviceId ?? null,
    flowId: input.flowRun?.flow?.flowId ?? input.flowId ?? null,
    flowRun: input.flowRun ? clone(input.flowRun) : null,
    pinnedConnectorAccountId: input.pinnedConnectorAccountId ?? null,
    authorizationExpiresAt: null,
    expiryAction: null,
    expiryNoticeAt: null,
    expiryActionRefusal: null,
    createdAt: now,
    updatedAt: now,
  };
}
