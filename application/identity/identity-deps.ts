import type { AccessTokens } from '../../domain/ports/access-tokens';
import type { Clock } from '../../domain/ports/clock';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type {
  CompanyRepository,
  LoginChallengeRepository,
  MembershipRepository,
  PasswordResetRepository,
  RecoveryCodeRepository,
  SessionRepository,
  UserRepository,
} from '../../domain/ports/identity-repositories';
import type { Mailer } from '../../domain/ports/mailer';
import type { OrganizationRepository } from '../../domain/ports/organization-repository';
import type { PasswordHasher } from '../../domain/ports/password-hasher';
import type { QrCodeRenderer } from '../../domain/ports/qr-code-renderer';
import type { SecureRandom } from '../../domain/ports/secure-random';
import type { Transactor } from '../../domain/ports/transactor';

/** The ports every identity use case draws from; one object so the composition root wires them once. */
export interface IdentityDeps {
  readonly transactor: Transactor;
  readonly organizations: OrganizationRepository;
  readonly users: UserRepository;
  readonly memberships: MembershipRepository;
  readonly companies: CompanyRepository;
  readonly challenges: LoginChallengeRepository;
  readonly sessions: SessionRepository;
  readonly recoveryCodes: RecoveryCodeRepository;
  readonly resets: PasswordResetRepository;
  readonly hasher: PasswordHasher;
  readonly accessTokens: AccessTokens;
  readonly random: SecureRandom;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  readonly mailer: Mailer;
  /** Draws the authenticator enrollment's otpauth URL for the phone's camera. */
  readonly qrCodes: QrCodeRenderer;
  /** Issuer shown in authenticator apps, and the public address reset links point to. */
  readonly settings: { readonly issuer: string; readonly publicBaseUrl: string };
  /** Failures of background work (e-mail) that must not reach the caller. */
  readonly onBackgroundError?: (error: unknown, context: string) => void;
}

/** 32 random bytes, base64url (43 characters): challenge, reset and refresh secrets. */
export function randomToken(deps: Pick<IdentityDeps, 'random'>): string {
  return Buffer.from(deps.random.bytes(32)).toString('base64url');
}
