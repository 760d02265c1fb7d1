/** Bodies of the transparent checkout's confirmation (spec: POST /v1/payments/{id}/confirm and its public twin). */
import { SENSITIVE_CARD_FIELDS } from '../../domain/payment/sensitive-card-data';
import type { JsonSchema } from '../http/validation';
import { THREE_DS_OUTCOMES } from '../../domain/payment/three-ds-eci';

const refused: JsonSchema = { description: 'Never accepted: card numbers and security codes go to the vault only; send card.token.' };

export const confirmCardSchema: JsonSchema = {
  type: 'object',
  required: ['token'],
  properties: {
    token: { type: 'string', minLength: 8, maxLength: 256 },
    brand: { type: 'string', maxLength: 32 },
    bin: { type: 'string', pattern: '^[0-9]{6,8}$' },
    last4: { type: 'string', pattern: '^[0-9]{4}$' },
    expMonth: { type: 'integer', minimum: 1, maximum: 12 },
    expYear: { type: 'integer', minimum: 2024, maximum: 2099 },
    holderName: { type: 'string', maxLength: 120 },
    ...Object.fromEntries(SENSITIVE_CARD_FIELDS.map((name) => [name, refused])),
  },
};

export const confirmCheckoutBody: JsonSchema = {
  type: 'object',
  required: ['card'],
  examples: [{ card: { token: 'tok_sandbox_approved', brand: 'visa', last4: '1111', expMonth: 12, expYear: 2030 }, saveCard: false }],
  properties: {
    card: confirmCardSchema,
    saveCard: { type: 'boolean', default: false },
    fraudAnalysis: {
      type: 'object',
      required: ['fingerprintSessionId'],
      properties: { fingerprintSessionId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,88}$' } },
    },
    device: {
      type: 'object',
      properties: {
        userAgent: { type: 'string', maxLength: 512 },
        language: { type: 'string', maxLength: 35 },
        screenWidth: { type: 'integer', minimum: 0, maximum: 100_000 },
        screenHeight: { type: 'integer', minimum: 0, maximum: 100_000 },
        colorDepth: { type: 'integer', minimum: 0, maximum: 64 },
        timezoneOffset: { type: 'integer', minimum: -1440, maximum: 1440 },
        javaEnabled: { type: 'boolean' },
        javascriptEnabled: { type: 'boolean' },
      },
    },
  },
};

/** The buyer's 3DS result (spec: POST /v1/public/payments/{id}/three-ds). CAVV and XID are passed on, never stored. */
export const threeDsResultBody: JsonSchema = {
  type: 'object',
  required: ['outcome'],
  examples: [{ outcome: 'success', eci: '05', version: '2.2.0', referenceId: '3ds_sandbox_example' }],
  properties: {
    outcome: { type: 'string', enum: [...THREE_DS_OUTCOMES] },
    cavv: { type: 'string', maxLength: 64 },
    xid: { type: 'string', maxLength: 64 },
    eci: { type: 'string', maxLength: 3 },
    version: { type: 'string', maxLength: 10 },
    referenceId: { type: 'string', maxLength: 64 },
    returnCode: { type: 'string', maxLength: 64 },
    returnMessage: { type: 'string', maxLength: 200 },
  },
};

/** The public view (documentation only). */
export const publicPaymentResponse: JsonSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['payment'] },
    id: { type: 'string' },
    status: { type: 'string' },
    amount: { type: 'integer' },
    currency: { type: 'string' },
    methodType: { type: 'string' },
    description: { type: ['string', 'null'] },
    merchant: { type: 'object', properties: { name: { type: ['string', 'null'] } } },
    canSaveCard: { type: 'boolean' },
    nextAction: { type: ['object', 'null'] },
    actionExpiresAt: { type: ['string', 'null'], format: 'date-time' },
    decline: { type: ['object', 'null'], properties: { reason: { type: 'string' }, consumerMessage: { type: 'string' }, consumerMessages: { type: 'object' } } },
    cardAttempts: { type: ['object', 'null'], properties: { used: { type: 'integer' }, remaining: { type: 'integer' }, max: { type: 'integer' } } },
    checkout: { type: ['object', 'null'], properties: { endedBy: { type: ['string', 'null'] } } },
    card: { type: ['object', 'null'], properties: { brand: { type: ['string', 'null'] }, last4: { type: 'string' } } },
    deviceFingerprint: {
      type: ['object', 'null'],
      description: 'The antifraud provider script to load before the card is entered (sessionId is the device session the authorization names); null when none.',
      properties: { provider: { type: 'string' }, sessionId: { type: 'string' }, scriptUrl: { type: 'string' } },
    },
  },
};

export const tokenizationSessionResponse: JsonSchema = {
  type: 'object',
  properties: { sessionId: { type: 'string' }, tokenizeUrl: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' } },
};
