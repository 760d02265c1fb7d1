import type { JsonSchema } from '../http/validation';
import { optionalWebAddress } from '../http/web-address';
import { acknowledgement, bool, dateTime, int, listOf, nullable, objectName, record, str } from '../http/response-schemas';
import { CHALLENGE_STAGES } from '../../domain/identity/login-challenge';
import { ROLES } from '../../domain/identity/roles';

/** JSON Schemas of the dashboard authentication routes, with the spec's exact bounds (unknown fields refused). */
const email: JsonSchema = { type: 'string', format: 'email', maxLength: 255 };
const newPassword: JsonSchema = { type: 'string', minLength: 12, maxLength: 256 };
const anyPassword: JsonSchema = { type: 'string', minLength: 1, maxLength: 256 };
const challengeToken: JsonSchema = { type: 'string', minLength: 32, maxLength: 128 };
const mfaCode: JsonSchema = { type: 'string', pattern: '^[0-9]{6}$', examples: ['123456'] };
const resetToken: JsonSchema = { type: 'string', minLength: 32, maxLength: 128 };
/** Empty string or an http(s) URL of at most 255 characters: a website is a link a person clicks. */
const website: JsonSchema = optionalWebAddress(255);

export const STATE_CODES = [
  'AC', 'AL', 'AP', 'AM', 'BA', 'CE', 'DF', 'ES', 'GO', 'MA', 'MT', 'MS', 'MG', 'PA',
  'PB', 'PR', 'PE', 'PI', 'RJ', 'RN', 'RS', 'RO', 'RR', 'SC', 'SP', 'SE', 'TO',
];

export const registerSchema: JsonSchema = {
  type: 'object',
  required: ['name', 'email', 'password', 'phone', 'company', 'acceptedTerms', 'authorizedRepresentative'],
  properties: {
    name: { type: 'string', minLength: 2, maxLength: 120 },
    email,
    password: newPassword,
    phone: { type: 'string', maxLength: 32 },
    acceptedTerms: { type: 'boolean', const: true },
    authorizedRepresentative: { type: 'boolean', const: true },
    company: {
      type: 'object',
      required: ['document', 'legalName', 'name', 'activity', 'address'],
      properties: {
        document: { type: 'string', maxLength: 32 },
        legalName: { type: 'string', minLength: 2, maxLength: 255 },
        name: { type: 'string', minLength: 2, maxLength: 120 },
        activity: { type: 'string', minLength: 2, maxLength: 255 },
        website,
        address: {
          type: 'object',
          required: ['postalCode', 'line1', 'streetNumber', 'neighborhood', 'city', 'state'],
          properties: {
            postalCode: { type: 'string', minLength: 8, maxLength: 9 },
            line1: { type: 'string', minLength: 2, maxLength: 255 },
            streetNumber: { type: 'string', minLength: 1, maxLength: 20 },
            complement: { type: 'string', maxLength: 120, default: '' },
            neighborhood: { type: 'string', minLength: 2, maxLength: 120 },
            city: { type: 'string', minLength: 2, maxLength: 120 },
            state: { type: 'string', enum: STATE_CODES },
          },
        },
      },
    },
  },
};

export const loginSchema: JsonSchema = { type: 'object', required: ['email', 'password'], properties: { email, password: anyPassword } };
export const refreshSchema: JsonSchema = {
  type: 'object',
  required: ['refreshToken'],
  properties: { refreshToken: { type: 'string', minLength: 16, maxLength: 2048 } },
};
export const createAccountSchema: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 2, maxLength: 120 }, website },
};
export const switchAccountSchema: JsonSchema = {
  type: 'object',
  required: ['organizationId'],
  properties: { organizationId: { type: 'string', minLength: 5, maxLength: 80 } },
};
export const changePasswordSchema: JsonSchema = {
  type: 'object',
  required: ['currentPassword', 'newPassword'],
  properties: { currentPassword: anyPassword, newPassword },
};
export const challengeSchema: JsonSchema = { type: 'object', required: ['challengeToken'], properties: { challengeToken } };
export const verifySchema: JsonSchema = {
  type: 'object',
  required: ['challengeToken'],
  properties: { challengeToken, mfaCode, recoveryCode: { type: 'string', minLength: 24, maxLength: 40 } },
  oneOf: [{ required: ['mfaCode'] }, { required: ['recoveryCode'] }],
};
export const regenerateRecoveryCodesSchema: JsonSchema = {
  type: 'object',
  required: ['currentPassword', 'mfaCode'],
  properties: { currentPassword: anyPassword, mfaCode },
};
export const forgotPasswordSchema: JsonSchema = { type: 'object', required: ['email'], properties: { email } };
export const resetCheckSchema: JsonSchema = { type: 'object', required: ['resetToken'], properties: { resetToken } };
export const resetPasswordSchema: JsonSchema = {
  type: 'object',
  required: ['resetToken', 'newPassword'],
  properties: { resetToken, newPassword },
};

/** Response shapes (documentation only, for the OpenAPI document). */
export const challengeResponse: JsonSchema = {
  type: 'object',
  required: ['challengeToken', 'stage'],
  properties: { challengeToken: { type: 'string' }, stage: { type: 'string', enum: ['mfa_setup_required', 'mfa_required'] } },
};
export const tokenPairResponse: JsonSchema = {
  type: 'object',
  required: ['accessToken', 'refreshToken', 'tokenType', 'expiresIn'],
  properties: {
    accessToken: { type: 'string' },
    refreshToken: { type: 'string' },
    tokenType: { type: 'string', enum: ['Bearer'] },
    expiresIn: { type: 'integer', description: 'Seconds until the access token expires' },
  },
};
export const setupResponse: JsonSchema = {
  type: 'object',
  required: ['manualKey', 'otpauthUrl', 'qrCode'],
  properties: {
    manualKey: { type: 'string', description: 'Base32 TOTP secret (RFC 6238, SHA-1, 6 digits, 30 s)' },
    otpauthUrl: { type: 'string' },
    qrCode: { type: 'string', description: 'data:image/png;base64 URI generated by the server' },
  },
};
export const verifyResponse: JsonSchema = {
  description: 'Tokens, or after a recovery code a new enrollment challenge',
  oneOf: [
    { ...tokenPairResponse, properties: { ...(tokenPairResponse.properties as object), recoveryCodes: { type: 'array', items: { type: 'string' } } } },
    challengeResponse,
  ],
};

export const registerResponse: JsonSchema = record({
  challengeToken: str,
  stage: { type: 'string', enum: ['mfa_setup_required'], description: 'A new owner enrolls an authenticator before any session' },
  organization: record({ id: str }),
  user: record({ id: str }),
});
export const mfaStatusResponse: JsonSchema = record({ stage: { type: 'string', enum: [...CHALLENGE_STAGES] }, expiresAt: dateTime });

const role: JsonSchema = { type: 'string', enum: [...ROLES] };
const userResponse: JsonSchema = record({
  object: objectName('user'), id: str, name: str, email: { type: 'string', format: 'email' }, phone: nullable(str), mfaEnabled: bool, createdAt: dateTime,
});
const organizationProperties: Record<string, JsonSchema> = {
  object: objectName('organization'),
  id: str,
  name: str,
  parentOrganizationId: nullable(str),
  type: { type: 'string', enum: ['company', 'brand'], description: 'A brand has a parent company' },
  createdAt: dateTime,
};
export const identityResponse: JsonSchema = record({
  object: objectName('identity'),
  credential: { type: 'string', enum: ['session', 'api_key'] },
  environment: { type: 'string', enum: ['sandbox', 'live'] },
  user: nullable({ ...userResponse, description: 'The signed-in user; null for an API key' }),
  organization: { type: 'object', required: ['id'], properties: organizationProperties },
  role: nullable({ ...role, description: 'The role of a session; null for an API key' }),
  apiKeyId: nullable(str),
  scopes: { type: 'array', items: str },
});
export const accountListResponse: JsonSchema = listOf(record({ ...organizationProperties, role, current: { type: 'boolean', description: 'The account this session works in' } }));
export const brandResponse: JsonSchema = record({ ...organizationProperties, website: str, role: { type: 'string', enum: ['owner'] } });
export const loggedOutResponse: JsonSchema = acknowledgement('loggedOut');
export const passwordChangedResponse: JsonSchema = acknowledgement('passwordChanged');
export const recoveryCodeCountResponse: JsonSchema = record({ available: { type: 'integer', minimum: 0 } });
export const recoveryCodesResponse: JsonSchema = record({
  recoveryCodes: { type: 'array', description: 'Shown once: store them now', items: str },
  available: int,
});
export const forgotPasswordResponse: JsonSchema = { ...acknowledgement('accepted'), description: 'The same answer whether or not the e-mail has an account' };
export const passwordResetCheckResponse: JsonSchema = record({ valid: bool, expiresAt: nullable({ ...dateTime, description: 'Null when the link is not valid' }) });
export const passwordResetResponse: JsonSchema = acknowledgement('passwordReset');
