import { MAX_SUMMARY_DAYS } from '../../application/payments/payment-summary';
import { CURRENCIES, METHOD_TYPES } from '../../domain/payment/payment';
import { PAYMENT_STATUSES } from '../../domain/payment/payment.transitions';
import { SENSITIVE_CARD_FIELDS } from '../../domain/payment/sensitive-card-data';
import type { JsonSchema } from '../http/validation';

/** A split recipient's id: the service's rcp_ prefix (spec, Conventions), at most 64 characters (body table). */
const recipientIdSchema: JsonSchema = { type: 'string', minLength: 5, maxLength: 64, pattern: '^rcp_' };
const refused: JsonSchema = { description: 'Never accepted: card numbers and security codes are refused with 422 sensitive_card_data; send card.token from the vault.' };
const sensitiveProperties: Record<string, JsonSchema> = Object.fromEntries(SENSITIVE_CARD_FIELDS.map((name) => [name, refused]));

export const MAX_AMOUNT = 9_999_999_999;
const amount: JsonSchema = { type: 'integer', minimum: 1, maximum: MAX_AMOUNT };
/** The currencies a payment is created in; the summary counts one of them at a time. */
const currency: JsonSchema = { type: 'string', enum: [...CURRENCIES], default: 'BRL' };
/** The spec's map: values string (max 512), number, boolean or null; no bound on keys beyond the 1 MB body limit. */
export const metadataSchema: JsonSchema = {
  type: 'object',
  additionalProperties: { type: ['string', 'number', 'boolean', 'null'], maxLength: 512 },
};
const idPattern = '^[A-Za-z0-9_-]+$';

export const cardSchema: JsonSchema = {
  type: 'object',
  required: ['token'],
  properties: {
    token: { type: 'string', minLength: 8, maxLength: 256 },
    isNetworkToken: { type: 'boolean', default: false },
    brand: { type: 'string', maxLength: 32 },
    bin: { type: 'string', pattern: '^[0-9]{6,8}$' },
    last4: { type: 'string', pattern: '^[0-9]{4}$' },
    expMonth: { type: 'integer', minimum: 1, maximum: 12 },
    expYear: { type: 'integer', minimum: 2024, maximum: 2099 },
    holderName: { type: 'string', maxLength: 120 },
    connectorAccountId: { type: 'string', maxLength: 64 },
    ...sensitiveProperties,
  },
};

/** POST /v1/payments: every field and bound of the spec's body table (only amount is required). */
export const createPaymentBody: JsonSchema = {
  type: 'object',
  required: ['amount'],
  // The reference's example and "Try it out" default: a sandbox test token, never card data (contract.md 5).
  examples: [{ amount: 1500, currency: 'BRL', methodType: 'card', card: { token: 'tok_sandbox_approved' }, captureMethod: 'manual', description: 'Order 1042' }],
  properties: {
    amount,
    currency,
    methodType: { type: 'string', enum: [...METHOD_TYPES], default: 'card' },
    pix: { type: 'object', properties: { expiresInSeconds: { type: 'integer', minimum: 60, maximum: 604800, default: 3600 } } },
    boleto: {
      type: 'object',
      properties: {
        dueDate: { type: 'string', format: 'date' },
        daysAfterDue: { type: 'integer', minimum: 0, maximum: 60, default: 0 },
        instructions: { type: 'string', maxLength: 255 },
        fineBps: { type: 'integer', minimum: 0, maximum: 2000 },
        interestMonthlyBps: { type: 'integer', minimum: 0, maximum: 1000 },
      },
    },
    customerId: { type: 'string', maxLength: 64 },
    paymentMethodId: { type: 'string', maxLength: 64 },
    tokenizationAccountId: { type: 'string', maxLength: 64 },
    card: cardSchema,
    captureMethod: { type: 'string', enum: ['automatic', 'manual'], default: 'automatic' },
    installments: { type: 'integer', minimum: 1, maximum: 24, default: 1 },
    initiator: { type: 'string', enum: ['customer', 'merchant'], default: 'customer' },
    mitType: { type: 'string', enum: ['recurring', 'installment', 'unscheduled', 'reauthorization', 'resubmission', 'delayed_charge', 'incremental', 'no_show'] },
    softDescriptor: { type: 'string', maxLength: 22 },
    description: { type: 'string', maxLength: 255 },
    externalId: { type: 'string', maxLength: 128 },
    splits: {
      type: 'array',
      maxItems: 20,
      items: {
        type: 'object',
        required: ['recipientId', 'type', 'value'],
        properties: {
          recipientId: recipientIdSchema,
          type: { type: 'string', enum: ['percentage', 'fixed'] },
          value: { type: 'integer', minimum: 0 },
          liableForChargeback: { type: 'boolean' },
          chargeProcessingFee: { type: 'boolean' },
        },
      },
    },
    splitRemainderRecipientId: { ...recipientIdSchema, description: 'Which of the split recipients takes the cents that rounding the percentage shares down leaves over (else the merchant keeps them).' },
    items: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        required: ['name', 'quantity', 'amount'],
        properties: {
          sku: { type: 'string', maxLength: 64 },
          name: { type: 'string', maxLength: 255 },
          // The spec sets no maximum; a million keeps every total exact and inside the acquirer contract's int64.
          quantity: { type: 'integer', minimum: 1, maximum: 1_000_000 },
          amount,
        },
      },
    },
    fraudAnalysis: {
      type: 'object',
      properties: {
        fingerprintSessionId: { type: 'string', minLength: 1, maxLength: 88, pattern: idPattern },
        shipping: {
          type: 'object',
          properties: {
            addressee: { type: 'string', maxLength: 120 },
            method: { type: 'string', enum: ['same_day', 'one_day', 'two_day', 'three_day', 'low_cost', 'pickup', 'other', 'none'] },
            phone: { type: 'string', maxLength: 20 },
          },
        },
        isGift: { type: 'boolean' },
        returnsAccepted: { type: 'boolean' },
        merchantDefinedFields: {
          type: 'array',
          maxItems: 100,
          items: {
            type: 'object',
            required: ['id', 'value'],
            properties: { id: { type: 'integer', minimum: 1, maximum: 89 }, value: { type: 'string', minLength: 1, maxLength: 255 } },
          },
        },
      },
    },
    // 45: the longest IPv6 text (with an IPv4 tail). Stored and compared in canonical form (domain/shared/ip-address.ts).
    clientIp: { type: 'string', maxLength: 45, anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }], description: 'IPv4 or IPv6 address; answered and stored in canonical form (RFC 5952; an IPv4-mapped IPv6 address as its IPv4)' },
    clientUserAgent: { type: 'string', maxLength: 512 },
    deviceId: { type: 'string', minLength: 16, maxLength: 128, pattern: idPattern },
    flowId: { type: 'string', maxLength: 64 },
    metadata: metadataSchema,
    ...sensitiveProperties,
  },
};

/** A comma list; its values are checked at the edge (edge/http/query-values.ts), which a schema string cannot say. */
const commaList = (values: string): JsonSchema => ({ type: 'string', maxLength: 500, description: `Comma-separated; each one of ${values}` });

export const listPaymentsQuery: JsonSchema = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    startingAfter: { type: 'string', minLength: 1, maxLength: 128 },
    createdBefore: { type: 'string', format: 'date-time' },
    createdAfter: { type: 'string', format: 'date-time' },
    hasFallback: { type: 'boolean' },
    search: { type: 'string', minLength: 1, maxLength: 200 },
    amountMin: { type: 'integer', minimum: 0, maximum: MAX_AMOUNT },
    amountMax: { type: 'integer', minimum: 0, maximum: MAX_AMOUNT },
    initiator: { type: 'string', enum: ['customer', 'merchant'] },
    methodType: commaList(METHOD_TYPES.join(', ')),
    brand: { type: 'string', maxLength: 500, description: 'Comma-separated card brands as sent on the payment, matched case-insensitively' },
    connector: { type: 'string', maxLength: 64 },
    connectorAccountId: { type: 'string', maxLength: 64 },
    status: commaList(PAYMENT_STATUSES.join(', ')),
    declineReason: { type: 'string', maxLength: 64, description: 'A canonical reason of the decline table, e.g. INSUFFICIENT_FUNDS' },
  },
};

export const summaryQuery: JsonSchema = {
  type: 'object',
  properties: {
    from: { type: 'string', format: 'date-time', description: `Default: 30 days before to. The period is at most ${MAX_SUMMARY_DAYS} days.` },
    to: { type: 'string', format: 'date-time', description: 'Default: now' },
    currency: { ...currency, description: 'Every figure counts only payments in this currency' },
  },
};

export const captureBody: JsonSchema = { type: 'object', properties: { amount }, examples: [{ amount: 1500 }] };
export const voidBody: JsonSchema = { type: 'object', properties: { reason: { type: 'string', maxLength: 255 } } };
export const refundBody: JsonSchema = {
  type: 'object',
  properties: { amount, reason: { type: 'string', maxLength: 255 }, metadata: metadataSchema },
  examples: [{ amount: 500, reason: 'Customer returned one item' }],
};

const addressSchema: JsonSchema = {
  type: ['object', 'null'],
  required: ['postalCode', 'line1', 'streetNumber', 'neighborhood', 'city', 'state'],
  properties: {
    postalCode: { type: 'string', minLength: 8, maxLength: 9 },
    line1: { type: 'string', minLength: 2, maxLength: 255 },
    streetNumber: { type: 'string', minLength: 1, maxLength: 20 },
    complement: { type: ['string', 'null'], maxLength: 120 },
    neighborhood: { type: 'string', minLength: 2, maxLength: 120 },
    city: { type: 'string', minLength: 2, maxLength: 120 },
    state: { type: 'string', minLength: 2, maxLength: 2 },
  },
};

const customerProperties: Record<string, JsonSchema> = {
  name: { type: 'string', minLength: 1, maxLength: 120 },
  email: { type: ['string', 'null'], format: 'email', maxLength: 255 },
  document: { type: ['string', 'null'], minLength: 11, maxLength: 18, pattern: '^[0-9./-]+$' },
  phone: { type: ['string', 'null'], maxLength: 32 },
  birthDate: { type: ['string', 'null'], format: 'date' },
  address: addressSchema,
  billingAddress: addressSchema,
  shippingAddress: addressSchema,
  metadata: metadataSchema,
};

export const createCustomerBody: JsonSchema = { type: 'object', required: ['name'], properties: customerProperties };
export const updateCustomerBody: JsonSchema = {
  type: 'object',
  properties: { ...customerProperties, metadata: { ...metadataSchema } },
};
export const listCustomersQuery: JsonSchema = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    startingAfter: { type: 'string', minLength: 1, maxLength: 128 },
    email: { type: 'string', maxLength: 255 },
  },
};

export const savePaymentMethodBody: JsonSchema = {
  type: 'object',
  required: ['card'],
  properties: { card: cardSchema, verify: { type: 'boolean', default: false } },
  examples: [{ card: { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111', expMonth: 12, expYear: 2030 }, verify: true }],
};

// ---- response shapes (documentation only) --------------------------------------------------------------------

/** OpenAPI 3.1 (JSON Schema) spelling of "may be null". */
const nullable = (schema: JsonSchema): JsonSchema =>
  typeof schema.type === 'string' && !schema.enum ? { ...schema, type: [schema.type, 'null'] } : { anyOf: [schema, { type: 'null' }] };
const str: JsonSchema = { type: 'string' };
const int: JsonSchema = { type: 'integer' };
const dateTime: JsonSchema = { type: 'string', format: 'date-time' };

const declineResponse: JsonSchema = {
  type: 'object',
  description: 'Present when the issuer declined; classified by the ABECS-based decline table.',
  properties: {
    reason: { type: 'string', example: 'INSUFFICIENT_FUNDS' },
    label: str,
    reversibility: { type: 'string', enum: ['REVERSIBLE', 'irreversible'] },
    retryAction: { type: 'string', example: 'RETRY_LATER' },
    consumerMessage: { type: 'string', description: 'Phrase for the buyer (pt-BR)' },
    consumerMessages: { type: 'object', properties: { ptBR: str, en: str } },
    rawCode: { type: 'string', example: '51' },
  },
};

const attemptResponse: JsonSchema = {
  type: 'object',
  properties: {
    id: str,
    connectorAccountId: str,
    connector: str,
    rawCode: nullable(str),
    classification: nullable(str),
    outcome: { type: 'string', enum: ['approved', 'declined', 'fraud_review', 'technical_failure', 'timeout'] },
    latencyMs: int,
    message: nullable(str),
    createdAt: dateTime,
    reconciliation: {
      type: 'object',
      description: 'Only on a timed-out attempt: the background re-send of Authorize with the same idempotency key, and the reversal of an authorization it found.',
      properties: {
        status: { type: 'string', enum: ['pending', 'not_authorized', 'voided', 'refunded', 'reversal_refused', 'unresolved'] },
        tries: int,
        checkedAt: nullable(dateTime),
        acquirerPaymentId: nullable(str),
        operationId: nullable(str),
        amount: int,
        rawCode: nullable(str),
        message: nullable(str),
      },
    },
  },
};

/** Every field of the payment object (application/payments/payment-object.ts) is always there, null when it does not apply. */
const PAYMENT_FIELDS = [
  'object', 'id', 'status', 'amount', 'currency', 'methodType', 'captureMethod', 'capturedAmount', 'refundedAmount', 'refundStatus',
  'clientSecret', 'nextAction', 'actionExpiresAt', 'checkout', 'latePayment', 'decline', 'error', 'fraudReview', 'review',
  'authorizationExpiresAt', 'expiryAction', 'customerId', 'paymentMethodId', 'card', 'acquirer', 'connectorAccountId', 'connector',
  'installments', 'initiator', 'mitType', 'softDescriptor', 'description', 'externalId', 'metadata', 'clientIp', 'deviceId', 'splits',
  'attempts', 'hasFallback', 'environment', 'livemode', 'createdAt', 'updatedAt',
];

export const paymentResponse: JsonSchema = {
  type: 'object',
  required: PAYMENT_FIELDS,
  properties: {
    object: { type: 'string', enum: ['payment'] },
    id: { type: 'string', example: 'pay_01J...' },
    status: { type: 'string', enum: ['requires_payment_method', 'requires_action', 'processing', 'authorized', 'captured', 'failed', 'canceled', 'voided'] },
    amount: int,
    currency: str,
    methodType: str,
    captureMethod: { type: 'string', enum: ['automatic', 'manual'] },
    capturedAmount: int,
    refundedAmount: int,
    refundStatus: nullable({ type: 'string', enum: ['partial', 'full'] }),
    clientSecret: nullable({ type: 'string', description: 'While the payment awaits the buyer (requires_payment_method or requires_action): what the browser or app authenticates the public routes with; null afterwards' }),
    nextAction: nullable({ type: 'object', required: ['type'], description: 'What the buyer does next: pay a Pix or boleto, or complete a 3DS step', properties: { type: { type: 'string', examples: ['pix'] }, expiresAt: nullable(dateTime) } }),
    actionExpiresAt: nullable({ ...dateTime, description: "A checkout's deadline" }),
    checkout: nullable({ type: 'object', properties: { attemptsUsed: int, attemptsMax: int, attemptsRemaining: int, endedBy: nullable(str) } }),
    review: nullable({
      type: 'object',
      description: "A flow's Manual review step: pending while the run waits for the merchant's decision",
      properties: { status: { type: 'string', enum: ['pending', 'approved', 'declined'] }, nodeId: str, since: dateTime, decidedAt: nullable(dateTime), note: nullable(str) },
    }),
    installments: { type: 'integer', minimum: 1 },
    initiator: { type: 'string', enum: ['customer', 'merchant'] },
    mitType: nullable(str),
    softDescriptor: nullable(str),
    description: nullable(str),
    externalId: nullable(str),
    clientIp: nullable(str),
    deviceId: nullable(str),
    environment: { type: 'string', enum: ['sandbox', 'live'] },
    decline: nullable(declineResponse),
    latePayment: nullable({
      type: 'object',
      description: 'Pix or boleto: money the bank reported paid after the payment was voided or expired (status stays canceled; payment.late_payment_received). Return it to the payer or honour the order.',
      properties: { amount: int, paidAt: nullable(dateTime), recordedAt: dateTime },
    }),
    error: nullable({ type: 'object', properties: { code: str, message: str, stage: str, connectorAccount: nullable({ type: 'object', properties: { id: str, name: str } }) } }),
    fraudReview: nullable({ type: 'object', properties: { status: { type: 'string', enum: ['pending', 'accepted', 'rejected', 'merchant_decided'] }, openedAt: dateTime, resolvedAt: nullable(dateTime) } }),
    authorizationExpiresAt: nullable(dateTime),
    expiryAction: nullable({ type: 'string', enum: ['notify', 'capture', 'void'] }),
    customerId: nullable(str),
    paymentMethodId: nullable(str),
    card: nullable({ type: 'object', properties: { brand: nullable(str), bin: nullable(str), last4: nullable(str), expMonth: nullable(int), expYear: nullable(int), holderName: nullable(str) } }),
    acquirer: { type: 'object', properties: { nsu: nullable(str), tid: nullable(str), authorizationCode: nullable(str), acquirerPaymentId: nullable(str) } },
    connectorAccountId: nullable(str),
    connector: nullable(str),
    attempts: { type: 'array', items: attemptResponse },
    hasFallback: { type: 'boolean' },
    splits: { type: 'array', items: { type: 'object' } },
    metadata: { type: 'object' },
    livemode: { type: 'boolean' },
    createdAt: dateTime,
    updatedAt: dateTime,
  },
};

export const paymentViewResponse: JsonSchema = {
  type: 'object',
  description: 'The payment plus routing, operations, refunds, timeline and allowed actions.',
  required: PAYMENT_FIELDS,
  properties: {
    ...(paymentResponse.properties as Record<string, JsonSchema>),
    routing: { type: 'object', properties: { strategy: { type: 'string', enum: ['direct', 'flow'] }, stopReason: nullable(str), hasFallback: { type: 'boolean' }, attemptCount: int } },
    flowExecution: nullable({
      type: 'object',
      description: 'The run that routed the payment: the nodes it went through and the port each was left by (null: the node ended the flow). Direct routing (no published flow) has a run too, with flowId and version null.',
      required: ['flowId', 'name', 'version', 'status', 'waitingFor', 'outcome', 'steps'],
      properties: {
        flowId: nullable(str),
        name: { type: 'string', examples: ['Direct routing'] },
        version: nullable(int),
        status: { type: 'string', examples: ['completed'] },
        waitingFor: nullable({ type: 'object', description: 'What a paused run waits for (an acquirer outcome, a timer, a review decision...)' }),
        outcome: nullable({ type: 'object' }),
        steps: {
          type: 'array',
          items: { type: 'object', properties: { nodeId: str, type: str, port: nullable(str), startedAt: dateTime, endedAt: dateTime, durationMs: int } },
        },
      },
    }),
    operations: { type: 'array', items: { type: 'object', properties: { id: str, type: { type: 'string', enum: ['capture', 'void', 'refund'] }, amount: int, releasedAmount: int, reason: nullable(str), createdAt: dateTime } } },
    refunds: { type: 'array', items: { type: 'object' } },
    timeline: { type: 'array', items: { type: 'object', properties: { id: str, type: str, createdAt: dateTime, previousAttributes: nullable({ type: 'object' }) } } },
    expiryActionRefusal: nullable({
      type: 'object',
      description: "The acquirer refused the account's near-expiry capture or void; it is not asked again (capture or void it yourself before the deadline).",
      properties: { at: dateTime, message: str },
    }),
    pendingOperation: nullable({
      type: 'object',
      description:
        'A capture, void or refund in flight, or one whose acquirer call got no answer (inFlight false): repeat that same request, with the same Idempotency-Key, to settle it; the service also repeats it on its own from automaticRetryAt.',
      properties: {
        kind: { type: 'string', enum: ['capture', 'void', 'refund'] },
        amount: nullable(int),
        inFlight: { type: 'boolean' },
        automaticRetryAt: nullable({ ...dateTime, description: 'When the service next repeats it on its own (null while in flight).' }),
      },
    }),
    allowedActions: { type: 'array', items: { type: 'string', enum: ['capture', 'void', 'refund', 'confirm'] } },
  },
};

const { attempts: _attempts, ...listItemProperties } = paymentResponse.properties as Record<string, JsonSchema>;

export const paymentListResponse: JsonSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['list'] },
    hasMore: { type: 'boolean' },
    totalCount: { type: 'integer', description: 'First page only' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          ...listItemProperties,
          attemptsSummary: { type: 'object', properties: { count: int, decidedBy: nullable({ type: 'object' }), hasFallback: { type: 'boolean' }, lastDeclineReason: nullable(str) } },
        },
      },
    },
  },
};

/** One definition for the summary and each connector account (docs/payments.md, Reads). */
const approvalRateBps: JsonSchema = { type: 'integer', description: 'approved * 10000 / (approved + declined), rounded down; technical failures are not issuer decisions and count in neither' };
const figures: Record<string, JsonSchema> = {
  total: int, approved: int, declined: int, failed: int, approvalRateBps, capturedVolume: int, averageTicket: int,
  refundedVolume: int, refundCount: int, recoveredVolume: int, recoveredCount: int,
};

export const summaryResponse: JsonSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['payment_summary'] },
    period: { type: 'object', properties: { from: dateTime, to: dateTime } },
    previousPeriod: { type: 'object', properties: { from: dateTime, to: dateTime } },
    currency: { type: 'string', enum: [...CURRENCIES], description: 'The currency every figure counts (query currency)' },
    ...figures,
    previous: { type: 'object', properties: figures },
    series: { type: 'object', properties: { granularity: { type: 'string', enum: ['hour', 'day'] }, points: { type: 'array', items: { type: 'object', properties: { start: dateTime, ...figures } } } } },
    connectorAccounts: {
      type: 'array',
      items: { type: 'object', properties: { connectorAccountId: str, connectorSlug: nullable(str), attempts: int, approved: int, declined: int, technicalFailures: int, approvalRateBps, capturedVolume: int, averageLatencyMs: nullable(int) } },
    },
  },
};

export const customerResponse: JsonSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['customer'] },
    id: { type: 'string', example: 'cus_01J...' },
    name: str, email: nullable(str), document: nullable(str), documentType: nullable({ type: 'string', enum: ['cpf', 'cnpj'] }),
    phone: nullable(str), birthDate: nullable(str), address: nullable({ type: 'object' }), billingAddress: nullable({ type: 'object' }),
    shippingAddress: nullable({ type: 'object' }), metadata: { type: 'object' }, createdAt: dateTime, updatedAt: dateTime,
  },
};

export const paymentMethodResponse: JsonSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['payment_method'] },
    id: { type: 'string', example: 'pm_01J...' },
    type: { type: 'string', enum: ['card'] },
    customerId: str,
    card: { type: 'object' },
    verification: {
      type: 'object',
      properties: { status: { type: 'string', enum: ['not_verified', 'valid', 'invalid', 'unavailable'] }, verifiedAt: nullable(dateTime), decline: { ...nullable(declineResponse), description: 'Why the issuer refused the card (invalid), classified like a payment decline' } },
    },
    createdAt: dateTime,
  },
};

export const customerListResponse: JsonSchema = {
  type: 'object',
  required: ['object', 'data', 'hasMore'],
  properties: { object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: customerResponse }, hasMore: { type: 'boolean' } },
};

export const paymentMethodListResponse: JsonSchema = {
  type: 'object',
  required: ['object', 'data', 'hasMore'],
  properties: { object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: paymentMethodResponse }, hasMore: { type: 'boolean' } },
};

export const deletedPaymentMethodResponse: JsonSchema = {
  ...paymentMethodResponse,
  description: 'The removed payment method, flagged deleted',
  required: ['object', 'id', 'deleted'],
  properties: { ...(paymentMethodResponse.properties as Record<string, JsonSchema>), deleted: { type: 'boolean', enum: [true] } },
};
