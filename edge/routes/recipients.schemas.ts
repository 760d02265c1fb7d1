import { BANK_ACCOUNT_TYPES } from '../../domain/recipient/recipient';
import type { JsonSchema } from '../http/validation';
import { metadataSchema } from './payments.schemas';

/** CPF or CNPJ, digits with the usual punctuation allowed; the check digits are validated by the aggregate. */
const documentSchema: JsonSchema = { type: 'string', minLength: 11, maxLength: 18, pattern: '^[0-9./-]+$', examples: ['52998224725'] };

/** contract.md 7; every field required: a bank account is written whole, also on PATCH. */
const bankAccountSchema: JsonSchema = {
  type: 'object',
  required: ['bankCode', 'branch', 'account', 'accountDigit', 'type', 'holderName', 'holderDocument'],
  properties: {
    bankCode: { type: 'string', pattern: '^[0-9]{3}$', examples: ['341'], description: 'The bank\'s 3-digit code (COMPE), e.g. 001, 341' },
    branch: { type: 'string', pattern: '^[0-9]{1,5}$', examples: ['1234'] },
    account: { type: 'string', pattern: '^[0-9]{1,20}$', examples: ['123456'], description: 'Without its check digit' },
    accountDigit: { type: 'string', pattern: '^[0-9A-Za-z]{1,2}$', examples: ['7'] },
    type: { type: 'string', enum: [...BANK_ACCOUNT_TYPES] },
    holderName: { type: 'string', minLength: 1, maxLength: 120 },
    holderDocument: documentSchema,
  },
};

const recipientProperties: Record<string, JsonSchema> = {
  name: { type: 'string', minLength: 1, maxLength: 120 },
  document: documentSchema,
  email: { type: ['string', 'null'], format: 'email', maxLength: 255 },
  bankAccount: bankAccountSchema,
  metadata: metadataSchema,
};

export const createRecipientBody: JsonSchema = { type: 'object', required: ['name', 'document', 'bankAccount'], properties: recipientProperties };
/** Omitted fields stay; null clears email; a metadata key set to null is removed. */
export const updateRecipientBody: JsonSchema = { type: 'object', properties: recipientProperties };
export const listRecipientsQuery: JsonSchema = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    startingAfter: { type: 'string', minLength: 1, maxLength: 128 },
  },
};

// ---- response shapes (documentation only) --------------------------------------------------------------------

const str: JsonSchema = { type: 'string' };
const dateTime: JsonSchema = { type: 'string', format: 'date-time' };

export const recipientResponse: JsonSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['recipient'] },
    id: { type: 'string', example: 'rcp_01J...' },
    name: str,
    document: { type: 'string', description: 'CPF or CNPJ, digits' },
    email: { type: ['string', 'null'] },
    bankAccount: {
      type: 'object',
      properties: { bankCode: str, branch: str, account: str, accountDigit: str, type: { type: 'string', enum: [...BANK_ACCOUNT_TYPES] }, holderName: str, holderDocument: str },
    },
    metadata: { type: 'object' },
    createdAt: dateTime,
    updatedAt: dateTime,
  },
};

export const recipientListResponse: JsonSchema = {
  type: 'object',
  properties: { object: { type: 'string', enum: ['list'] }, hasMore: { type: 'boolean' }, data: { type: 'array', items: recipientResponse } },
};
