import { Accounts } from '../../application/identity/accounts';
import { CreateOwner } from '../../application/identity/create-owner';
import type { IdentityDeps } from '../../application/identity/identity-deps';
import { Login } from '../../application/identity/login';
import { MfaChallenge } from '../../application/identity/mfa-challenge';
import { PasswordResetFlow } from '../../application/identity/password-reset-flow';
import { RecoveryCodeManagement } from '../../application/identity/recovery-code-management';
import { Register } from '../../application/identity/register';
import { SessionLifecycle } from '../../application/identity/session-lifecycle';
import { SecurityGuard } from '../../application/security/security-guard';
import { SecurityIncidents } from '../../application/security/security-incidents';
import { apiKeyRoutes } from '../../edge/routes/api-keys.routes';
import { authRoutes } from '../../edge/routes/auth.routes';
import { securityRoutes } from '../../edge/routes/security.routes';
import { sessionAuthenticator } from '../../edge/routes/session.authenticator';
import type { Mailer } from '../../domain/ports/mailer';
import { AesGcmCredentialCipher, loadCredentialKeys } from '../crypto/aes-gcm-credential-cipher';
import { Hs256AccessTokens, sessionSecretsOf } from '../crypto/hs256-access-tokens';
import { NodeSecureRandom } from '../crypto/node-secure-random';
import { PngQrCodeRenderer } from '../rendering/png-qr-code-renderer';
import { ScryptPasswordHasher } from '../crypto/scrypt-password-hasher';
import { SmtpMailer } from '../email/smtp-mailer';
import {
  SqlCompanyRepository,
  SqlLoginChallengeRepository,
  SqlMembershipRepository,
  SqlPasswordResetRepository,
  SqlRecoveryCodeRepository,
  SqlSessionRepository,
  SqlUserRepository,
} from '../persistence/identity.repository';
import { purgeIdentityLeftovers } from '../persistence/identity-housekeeping';
import { installationSecret } from '../persistence/identity-secrets';
import { SqlCardAttemptRepository, SqlSecurityIncidentRepository } from '../persistence/security.repository';
import type { Core } from './core';
import { periodicWorker, type BuiltModule, type ModuleDefinition } from './module';

/** CLI `org create --email`: the owner user, with a one-time reset token to choose a password. */
export async function createOwnerFromCli(core: Core, organizationId: string, flags: Record<string, string>): Promise<unknown> {
  if (!flags.email) return '';
  const { deps } = await identityDeps(core);
  const owner = await new CreateOwner(deps).execute({ organizationId, email: flags.email, name: flags['owner-name'] });
  if (deps.mailer instanceof SmtpMailer) deps.mailer.close();
  return {
    id: owner.userId,
    email: owner.email,
    role: 'owner',
    passwordResetToken: owner.resetToken,
    passwordResetExpiresAt: owner.expiresAt.toISOString(),
    next: 'POST /v1/auth/reset-password {resetToken, newPassword}, then log in and enroll an authenticator',
  };
}

/** Test and tuning hooks of the identity module (production uses the defaults). */
export interface IdentityModuleOptions {
  readonly mailer?: Mailer;
  readonly housekeepingIntervalMs?: number;
}

/**
 * The identity ports wired on the core (shared by the module and the operators' CLI), and the cipher that seals the
 * installation secrets.
 */
export async function identityDeps(core: Core, options: IdentityModuleOptions = {}): Promise<{ deps: IdentityDeps; cipher: AesGcmCredentialCipher }> {
  const mailer = options.mailer ?? new SmtpMailer(core.config.smtpUrl, core.config.authEmailEnabled);
  const log = core.logger.child({ component: 'identity' });
  const onBackgroundError = (error: unknown, context: string) => log.warn({ err: error }, `${context} failed`);
  const cipher = new AesGcmCredentialCipher(
    loadCredentialKeys({
      credentialsKey: core.config.credentialsKey,
      dataDir: core.config.dataDir,
      deployment: core.config.deployment,
      distributed: core.config.databaseUrl !== null,
    }),
  );
  // SESSION_SECRET may list previous secrets after the current one (rotation); the current one signs.
  const secrets = core.config.sessionSecret ? sessionSecretsOf(core.config.sessionSecret) : [await installationSecret(core.transactor, 'session', cipher)];
  const deps: IdentityDeps = {
    transactor: core.transactor,
    organizations: core.organizations.repository,
    users: new SqlUserRepository(cipher),
    memberships: new SqlMembershipRepository(),
    companies: new SqlCompanyRepository(),
    challenges: new SqlLoginChallengeRepository(cipher),
    sessions: new SqlSessionRepository(),
    recoveryCodes: new SqlRecoveryCodeRepository(),
    resets: new SqlPasswordResetRepository(),
    hasher: new ScryptPasswordHasher(),
    accessTokens: new Hs256AccessTokens(secrets),
    random: new NodeSecureRandom(),
    ids: core.ids,
    clock: core.clock,
    mailer,
    qrCodes: new PngQrCodeRenderer(),
    settings: { issuer: 'Payments', publicBaseUrl: core.config.publicBaseUrl },
    onBackgroundError,
  };
  return { deps, cipher };
}

/** What identity gives to the modules built after it. */
export interface IdentityServices {
  /** Card-testing detection (payments screens each card attempt with it). */
  readonly securityGuard: SecurityGuard;
  readonly identityAccounts: Accounts;
}

/**
 * Dashboard identity (register, login with mandatory TOTP, sessions, brands), API key management and account
 * security (card-testing incidents). Needs no other module.
 */
export function identityModule(options: IdentityModuleOptions = {}): ModuleDefinition<unknown, IdentityServices> {
  return {
    name: 'identity',
    async build(core: Core): Promise<BuiltModule<IdentityServices>> {
      const { deps, cipher } = await identityDeps(core, options);
      const { mailer, memberships, onBackgroundError } = deps;
      const log = core.logger.child({ component: 'identity' });
      const accounts = new Accounts(deps);
      const guard = new SecurityGuard({
        transactor: core.transactor,
        attempts: new SqlCardAttemptRepository(),
        incidents: new SqlSecurityIncidentRepository(),
        memberships,
        mailer,
        ids: core.ids,
        clock: core.clock,
        // An installation secret of its own, not SESSION_SECRET: rotating that must not lift blocks or reset windows.
        pseudonymizationKey: await installationSecret(core.transactor, 'pseudonymization', cipher),
        onBackgroundError,
      });
      const incidents = new SecurityIncidents(core.transactor, new SqlSecurityIncidentRepository(), guard, core.clock);
      return {
        provides: { securityGuard: guard, identityAccounts: accounts },
        routes: [
          ...authRoutes({
            register: new Register(deps),
            login: new Login(deps),
            mfa: new MfaChallenge(deps),
            sessions: new SessionLifecycle(deps),
            resets: new PasswordResetFlow(deps),
            recoveryCodes: new RecoveryCodeManagement(deps),
            accounts,
            rateLimiter: core.rateLimiter,
            limits: core.config.rateLimits,
          }),
          ...apiKeyRoutes({ create: core.apiKeys.create, repository: core.apiKeys.repository, transactor: core.transactor, clock: core.clock }),
          ...securityRoutes({ guard, incidents }),
        ],
        authenticators: [sessionAuthenticator(accounts)],
        workers: [
          periodicWorker(
            'identity-housekeeping',
            options.housekeepingIntervalMs ?? 60 * 60 * 1000,
            () => purgeIdentityLeftovers(core.transactor, core.clock.now()),
            (error) => log.warn({ err: error }, 'identity housekeeping failed'),
          ),
        ],
        health: () => ({ dashboardEmail: mailer.enabled ? 'enabled' : 'disabled' }),
        stop: async () => {
          if (mailer instanceof SmtpMailer) mailer.close();
        },
      };
    },
  };
}

export const IDENTITY_MODULE = identityModule();
