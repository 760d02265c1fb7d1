import { createHash } from 'node:crypto';
import type { Accounts } from '../../application/identity/accounts';
import type { TokenPair } from '../../application/identity/issue-session';
import type { Login } from '../../application/identity/login';
import type { MfaChallenge } from '../../application/identity/mfa-challenge';
import type { PasswordResetFlow } from '../../application/identity/password-reset-flow';
import type { RecoveryCodeManagement } from '../../application/identity/recovery-code-management';
import type { Register } from '../../application/identity/register';
import type { SessionLifecycle } from '../../application/identity/session-lifecycle';
import type { Organization } from '../../domain/organization/organization';
import type { User } from '../../domain/identity/user';
import { HttpError } from '../http/errors';
import { GuessThrottle } from '../http/guess-throttle';
import type { AttemptCounter } from '../http/rate-limiter';
import { defineRoute, type ApiRequest, type RateLimitRule, type RouteDefinition } from '../http/route';
import {
  accountListResponse,
  brandResponse,
  forgotPasswordResponse,
  identityResponse,
  loggedOutResponse,
  mfaStatusResponse,
  passwordChangedResponse,
  passwordResetCheckResponse,
  passwordResetResponse,
  recoveryCodeCountResponse,
  recoveryCodesResponse,
  registerResponse,
  challengeResponse,
  challengeSchema,
  changePasswordSchema,
  setupResponse,
  tokenPairResponse,
  verifyResponse,
  createAccountSchema,
  forgotPasswordSchema,
  loginSchema,
  refreshSchema,
  regenerateRecoveryCodesSchema,
  registerSchema,
  resetCheckSchema,
  resetPasswordSchema,
  switchAccountSchema,
  verifySchema,
} from './auth.schemas';
import { DEFAULT_AUTH_LIMITS, type AuthLimitName, type AuthLimits } from './auth.limits';
import { sessionOf } from './session.authenticator';

export interface AuthRouteDeps {
  readonly register: Register;
  readonly login: Login;
  readonly mfa: MfaChallenge;
  readonly sessions: SessionLifecycle;
  readonly resets: PasswordResetFlow;
  readonly recoveryCodes: RecoveryCodeManagement;
  readonly accounts: Accounts;
  readonly rateLimiter: AttemptCounter;
  /** Overrides of the limits by name (RATE_LIMITS); the rest keep DEFAULT_AUTH_LIMITS. */
  readonly limits?: Partial<AuthLimits>;
}

const TAG = 'Dashboard authentication';
const digest = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 32);
const emailKey = (request: ApiRequest<{ email: string }>) => digest(request.body.email.trim().toLowerCase());

export function userView(user: User) {
  return {
    object: 'user',
    id: user.id,
    name: user.name,
    email: user.email,
    phone: user.phone,
    mfaEnabled: user.authenticator !== null,
    createdAt: user.createdAt.toISOString(),
  };
}

export function organizationView(organization: Organization, extra: Record<string, unknown> = {}) {
  return {
    object: 'organization',
    id: organization.id,
    name: organization.name,
    parentOrganizationId: organization.parentOrganizationId,
    type: organization.parentOrganizationId ? 'brand' : 'company',
    // The organization repository may hand back the driver's string; normalize to ISO either way.
    createdAt: new Date(organization.createdAt).toISOString(),
    ...extra,
  };
}

const tokensBody = (tokens: TokenPair) => ({
  accessToken: tokens.accessToken,
  refreshToken: tokens.refreshToken,
  tokenType: tokens.tokenType,
  expiresIn: tokens.expiresIn,
});

export function authRoutes(deps: AuthRouteDeps): RouteDefinition[] {
  const limits: AuthLimits = { ...DEFAULT_AUTH_LIMITS, ...deps.limits };
  const limit = (name: AuthLimitName) => ({ name, ...limits[name] });
  const rule = (name: AuthLimitName, key: RateLimitRule['key']): RateLimitRule => ({
    name, points: limits[name].points, durationSeconds: limits[name].windowSeconds, key,
  });
  const perAddress = (name: AuthLimitName) => rule(name, (r) => r.ip || 'unknown');
  const passwordGuesses = new GuessThrottle(deps.rateLimiter, { perAddress: limit('auth.login.account_address'), perAccount: limit('auth.login.account') });
  const codeGuesses = new GuessThrottle(deps.rateLimiter, { perAddress: limit('auth.mfa.verify.account_address'), perAccount: limit('auth.mfa.verify.account') });
  const resetMails = limit('auth.forgot_password.email');

  return [
    defineRoute({
      method: 'post', path: '/v1/auth/register', operationId: 'register', tag: TAG, auth: 'none', successStatus: 201,
      summary: 'Create a company and its owner; returns an authenticator enrollment challenge (no session yet)',
      body: registerSchema,
      rateLimits: [perAddress('auth.register.address')],
      response: registerResponse,
      handler: async ({ body }) => {
        const result = await deps.register.execute(body);
        return {
          body: {
            challengeToken: result.challengeToken,
            stage: result.stage,
            organization: { id: result.organization.id },
            user: { id: result.user.id },
          },
        };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/auth/login', operationId: 'login', tag: TAG, auth: 'none', successStatus: 201,
      summary: 'E-mail and password; returns a second-factor challenge, never session tokens',
      body: loginSchema,
      response: challengeResponse,
      rateLimits: [perAddress('auth.login.address')],
      handler: async (request) => {
        // Wrong passwords are counted per (account, address) and per account, never so that a stranger's guesses
        // refuse the owner's right password from an address that has not failed (GuessThrottle).
        const result = await passwordGuesses.attempt(emailKey(request), request.ip, () => deps.login.execute(request.body));
        return { body: { challengeToken: result.challengeToken, stage: result.stage } };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/auth/mfa/status', operationId: 'mfaStatus', tag: TAG, auth: 'none', successStatus: 201,
      summary: 'Stage of a second-factor challenge',
      body: challengeSchema,
      rateLimits: [perAddress('auth.mfa.status.address')],
      response: mfaStatusResponse,
      handler: async ({ body }) => {
        const status = await deps.mfa.status(body.challengeToken);
        return { body: { stage: status.stage, expiresAt: status.expiresAt.toISOString() } };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/auth/mfa/setup', operationId: 'mfaSetup', tag: TAG, auth: 'none', successStatus: 201,
      summary: 'Enroll an authenticator: a manual key, an otpauth URL and a locally generated QR code',
      body: challengeSchema,
      response: setupResponse,
      rateLimits: [perAddress('auth.mfa.setup.address')],
      handler: async ({ body }) => ({ body: await deps.mfa.setup(body.challengeToken) }),
    }),
    defineRoute({
      method: 'post', path: '/v1/auth/mfa/verify', operationId: 'mfaVerify', tag: TAG, auth: 'none', successStatus: 201,
      summary: 'Confirm a TOTP code or a recovery code; returns tokens, or a new enrollment challenge after a recovery code',
      body: verifySchema,
      response: verifyResponse,
      rateLimits: [perAddress('auth.mfa.verify.address')],
      handler: async ({ body, ip }) => {
        // Wrong codes are counted like wrong passwords: per (user, address) and per user (GuessThrottle).
        const subject = await deps.mfa.subject(body.challengeToken);
        const result = subject ? await codeGuesses.attempt(subject, ip, () => deps.mfa.verify(body)) : await deps.mfa.verify(body);
        if (result.kind === 'enroll') return { body: { challengeToken: result.challengeToken, stage: result.stage } };
        return { body: { ...tokensBody(result), ...(result.recoveryCodes ? { recoveryCodes: result.recoveryCodes } : {}) } };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/auth/refresh', operationId: 'refreshSession', tag: TAG, auth: 'none', successStatus: 201,
      summary: 'New token pair; the refresh token is rotated on every use and a reused one ends the session',
      body: refreshSchema,
      response: tokenPairResponse,
      rateLimits: [perAddress('auth.refresh.address')],
      handler: async ({ body }) => ({ body: tokensBody(await deps.sessions.refresh(body.refreshToken)) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/auth/me', operationId: 'getMe', tag: TAG, auth: 'merchant', successStatus: 200,
      summary: 'User, organization and effective scopes of the credential in use',
      response: identityResponse,
      handler: async ({ principal }) => {
        const organization = await deps.accounts.organization(principal!.organizationId);
        const identity = principal!.kind === 'session' ? await deps.accounts.userView(principal!.userId!) : null;
        return {
          body: {
            object: 'identity',
            credential: principal!.kind,
            environment: principal!.environment,
            user: identity ? userView(identity) : null,
            organization: organization ? organizationView(organization) : { id: principal!.organizationId },
            role: principal!.role ?? null,
            apiKeyId: principal!.apiKeyId ?? null,
            scopes: [...principal!.scopes].sort(),
          },
        };
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/auth/accounts', operationId: 'listAccounts', tag: TAG, auth: 'session', successStatus: 200,
      summary: 'Accounts and brands reachable with the same login',
      response: accountListResponse,
      handler: async ({ principal }) => {
        const session = sessionOf(principal);
        const accounts = await deps.accounts.list(session.userId);
        return {
          body: {
            object: 'list',
            data: accounts.map((a) => organizationView(a.organization, { role: a.role, current: a.organization.id === session.organizationId })),
            hasMore: false,
          },
        };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/auth/accounts', operationId: 'createBrand', tag: TAG, auth: 'session', successStatus: 201,
      summary: 'Create a brand of the current company (company owner only); separate data, no new trial',
      body: createAccountSchema,
      response: brandResponse,
      handler: async ({ principal, body }) => {
        const session = sessionOf(principal);
        const created = await deps.accounts.createBrand(session.userId, session.organizationId, { name: body.name, website: body.website ?? '' });
        return { body: organizationView(created.organization, { website: created.website, role: 'owner' }) };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/auth/switch-account', operationId: 'switchAccount', tag: TAG, auth: 'session', successStatus: 201,
      summary: 'Tokens for another reachable account, with the role held there',
      body: switchAccountSchema,
      response: tokenPairResponse,
      handler: async ({ principal, body }) => {
        const session = sessionOf(principal);
        return { body: tokensBody(await deps.accounts.switchAccount(session.userId, body.organizationId)) };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/auth/logout', operationId: 'logout', tag: TAG, auth: 'session', successStatus: 201,
      summary: "Invalidate all the user's refresh tokens at once (advances tokensValidAfter)",
      response: loggedOutResponse,
      handler: async ({ principal }) => {
        await deps.sessions.logout(sessionOf(principal));
        return { body: { loggedOut: true } };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/auth/change-password', operationId: 'changePassword', tag: TAG, auth: 'session', successStatus: 201,
      summary: "Change the password; the user's other sessions end",
      body: changePasswordSchema,
      response: passwordChangedResponse,
      handler: async ({ principal, body }) => {
        await deps.sessions.changePassword(sessionOf(principal), body.currentPassword, body.newPassword);
        return { body: { passwordChanged: true } };
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/auth/mfa/recovery-codes', operationId: 'countRecoveryCodes', tag: TAG, auth: 'session', successStatus: 200,
      summary: 'Number of recovery codes still available',
      response: recoveryCodeCountResponse,
      handler: async ({ principal }) => ({ body: await deps.recoveryCodes.count(sessionOf(principal).userId) }),
    }),
    defineRoute({
      method: 'post', path: '/v1/auth/mfa/recovery-codes', operationId: 'regenerateRecoveryCodes', tag: TAG, auth: 'session', successStatus: 201,
      summary: 'New recovery codes (shown once); the previous ones stop working',
      body: regenerateRecoveryCodesSchema,
      rateLimits: [rule('auth.recovery_codes.user', (r) => r.principal?.userId ?? null)],
      response: recoveryCodesResponse,
      handler: async ({ principal, body }) => {
        const result = await deps.recoveryCodes.regenerate(sessionOf(principal).userId, body.currentPassword, body.mfaCode);
        return { body: { recoveryCodes: result.recoveryCodes, available: result.recoveryCodes.length } };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/auth/forgot-password', operationId: 'forgotPassword', tag: TAG, auth: 'none', successStatus: 201,
      summary: 'Send a reset link if the e-mail has an account; the answer never tells',
      body: forgotPasswordSchema,
      rateLimits: [
        perAddress('auth.forgot_password.address'),
        rule('auth.forgot_password.email_address', (r) => `${emailKey(r)}:${r.ip || 'unknown'}`),
      ],
      response: forgotPasswordResponse,
      handler: async (request) => {
        // Requests are refused per (e-mail, address), so a stranger's requests never refuse the owner's. What is
        // capped per e-mail is the mail sent, silently: past the cap nothing is sent and no link is voided, so the
        // owner's inbox keeps the last link (valid 30 minutes, longer than the window), and the answer is the same
        // whether or not the e-mail has an account.
        const mail = await deps.rateLimiter.consume(`${resetMails.name}:${emailKey(request)}`, resetMails.points, resetMails.windowSeconds);
        if (mail.allowed) await deps.resets.forgotPassword(request.body.email);
        return { body: { accepted: true } };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/auth/password-reset/check', operationId: 'checkPasswordReset', tag: TAG, auth: 'none', successStatus: 201,
      summary: 'Whether a reset link is still valid, without consuming it',
      body: resetCheckSchema,
      rateLimits: [perAddress('auth.password_reset_check.address')],
      response: passwordResetCheckResponse,
      handler: async ({ body }) => {
        const result = await deps.resets.check(body.resetToken);
        return { body: { valid: result.valid, expiresAt: result.expiresAt?.toISOString() ?? null } };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/auth/reset-password', operationId: 'resetPassword', tag: TAG, auth: 'none', successStatus: 201,
      summary: 'Set a new password with a reset link (single use, 30 minutes); ends sessions in every account',
      body: resetPasswordSchema,
      rateLimits: [perAddress('auth.reset_password.address')],
      response: passwordResetResponse,
      handler: async ({ body }) => {
        await deps.resets.reset(body.resetToken, body.newPassword);
        return { body: { passwordReset: true } };
      },
    }),
  ];
}
