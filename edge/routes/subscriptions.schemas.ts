import { CURRENCIES, MAX_PAYMENT_AMOUNT } from '../../domain/payment/payment';
import type { JsonSchema } from '../http/validation';
import { metadataSchema } from './payments.schemas';

const INTERVALS = ['day', 'week', 'month', 'year'];
const STATUSES = ['active', 'past_due', 'canceled'];

/** contract.md 4. */
export const createSubscriptionBody: JsonSchema = {
  type: 'object',
  required: ['customerId', 'paymentMethodId', 'amount', 'interval'],
  properties: {
    customerId: { type: 'string', minLength: 1, maxLength: 64, examples: ['cus_01J...'] },
    paymentMethodId: { type: 'string', minLength: 1, maxLength: 64, description: 'A saved card of that customer', examples: ['pm_01J...'] },
    amount: { type: 'integer', minimum: 1, maximum: MAX_PAYMENT_AMOUNT, description: 'Each charge, in minor units' },
    currency: { type: 'string', enum: [...CURRENCIES], default: 'BRL' },
    interval: { type: 'string', enum: INTERVALS },
    intervalCount: { type: 'integer', minimum: 1, maximum: 365, default: 1 },
    startDate: { type: 'string', format: 'date-time', description: 'The first charge; at once when omitted or not in the future' },
    description: { type: ['string', 'null'], maxLength: 500 },
    metadata: metadataSchema,
  },
  examples: [{ customerId: 'cus_01J...', paymentMethodId: 'pm_01J...', amount: 4990, currency: 'BRL', interval: 'month', intervalCount: 1, description: 'Plano mensal' }],
};

export const listSubscriptionsQuery: JsonSchema = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    startingAfter: { type: 'string', minLength: 1, maxLength: 128 },
    customerId: { type: 'string', minLength: 1, maxLength: 64 },
    status: { type: 'string', enum: STATUSES },
  },
};

// ---- response shapes (documentation only) --------------------------------------------------------------------

const str: JsonSchema = { type: 'string' };
const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
const nullableDateTime: JsonSchema = { type: ['string', 'null'], format: 'date-time' };

export const subscriptionResponse: JsonSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['subscription'] },
    id: { type: 'string', example: 'sub_01J...' },
    status: { type: 'string', enum: STATUSES },
    customerId: str,
    paymentMethodId: str,
    amount: { type: 'integer' },
    currency: str,
    interval: { type: 'string', enum: INTERVALS },
    intervalCount: { type: 'integer' },
    startDate: dateTime,
    description: { type: ['string', 'null'] },
    metadata: { type: 'object' },
    currentPeriod: { type: 'integer', description: 'The period being charged (0: the first charge)' },
    nextChargeAt: { ...nullableDateTime, description: 'The next charge or retry; null once canceled' },
    retriesDone: { type: 'integer' },
    latestPaymentId: { type: ['string', 'null'] },
    canceledAt: nullableDateTime,
    cancellationReason: { type: ['string', 'null'], enum: ['merchant', 'issuer', null] },
    environment: str,
    livemode: { type: 'boolean' },
    createdAt: dateTime,
    updatedAt: dateTime,
  },
};

export const subscriptionListResponse: JsonSchema = {
  type: 'object',
  properties: { object: { type: 'string', enum: ['list'] }, hasMore: { type: 'boolean' }, data: { type: 'array', items: subscriptionResponse } },
};
